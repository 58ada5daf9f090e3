// peer_bench.cpp: alloclab's size-class pools against the allocators a user would otherwise
// pick, side by side in the same alloclab_bench run (issue 9).
//
//   peer_alloc_free_<N>B/<peer>            allocate + deallocate N = 16/64/256 bytes, alignment
//                                          alignof(max_align_t); a stack unwinds and a monotonic
//                                          resource releases once per batch of 1024 pairs.
//   peer_random_8_1024_live64/<peer>       64 live blocks; each operation frees the oldest block
//                                          and allocates a size drawn uniformly from 8..1024 in
//                                          its place (the same pre-drawn sizes for every peer).
//                                          Alignment 8 through pmr, alignof(std::byte) through
//                                          alloclab::allocator (the same size classes either way).
//   .../threads:N/real_time                the same with N threads at once, each on its own blocks,
//                                          all on one shared resource: thread-safe peers only;
//                                          items_per_second is the total throughput.
//   peer_producer_consumer/<peer>          one thread allocates 1024 random 8..1024-byte blocks,
//                                          a second thread frees them (every free is cross-thread),
//                                          in turns; time = both phases, hand-over excluded.
//
// Peers: mi_malloc/mi_free called directly (loaded with dlopen, see mimalloc_api); foonathan
// memory_pool, memory_pool_collection (identity and log2 buckets) and memory_stack (Debian's
// build: debug checks off, see docs/benchmarks.md); boost::container::pmr monotonic, unsynchronized and synchronized pools;
// libstdc++'s unsynchronized and synchronized pools; glibc malloc; and a do-nothing resource
// through std::pmr::memory_resource* (the cost of the virtual call alone) and inlined (the cost
// of the workload's loop alone).
#include <alloclab/allocator.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>

#include <benchmark/benchmark.h>
#include <boost/container/pmr/global_resource.hpp>
#include <boost/container/pmr/memory_resource.hpp>
#include <boost/container/pmr/monotonic_buffer_resource.hpp>
#include <boost/container/pmr/synchronized_pool_resource.hpp>
#include <boost/container/pmr/unsynchronized_pool_resource.hpp>
#include <foonathan/memory/memory_pool.hpp>
#include <foonathan/memory/memory_pool_collection.hpp>
#include <foonathan/memory/memory_stack.hpp>
#include <dlfcn.h>

#include "bench_support.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory_resource>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace alloclab_bench {
namespace {

namespace fm = foonathan::memory;
namespace bpmr = boost::container::pmr;

constexpr std::size_t pair_batch = 1024;  // operations per timed iteration
constexpr std::size_t largest_random_size = 1024;

// ---------------------------------------------------------------------------
// Peers: each owns its allocator and offers alloc(size, alignment) / free(p, size, alignment).

// Any std::pmr resource, called through memory_resource* whose dynamic type is hidden.
template <class Resource>
struct std_pmr_peer {
  Resource resource;
  std::pmr::memory_resource* r = opaque<std::pmr::memory_resource>(&resource);
  template <class... Args>
  explicit std_pmr_peer(Args&&... args) : resource(std::forward<Args>(args)...) {}
  void* alloc(std::size_t n, std::size_t a) { return r->allocate(n, a); }
  void free(void* p, std::size_t n, std::size_t a) { r->deallocate(p, n, a); }
  void reset() {}
};

// The same for Boost's own memory_resource hierarchy.
template <class Resource>
struct boost_pmr_peer {
  Resource resource;
  bpmr::memory_resource* r = opaque<bpmr::memory_resource>(&resource);
  void* alloc(std::size_t n, std::size_t a) { return r->allocate(n, a); }
  void free(void* p, std::size_t n, std::size_t a) { r->deallocate(p, n, a); }
  void reset() {}
};

// Boost's monotonic resource over an exact buffer and no upstream; released once per batch.
struct boost_monotonic_peer {
  aligned_buffer buffer{pair_batch * 256};
  bpmr::monotonic_buffer_resource resource{buffer.data(), buffer.size(),
                                           bpmr::null_memory_resource()};
  bpmr::memory_resource* r = opaque<bpmr::memory_resource>(&resource);
  void* alloc(std::size_t n, std::size_t a) { return r->allocate(n, a); }
  void free(void* p, std::size_t n, std::size_t a) { r->deallocate(p, n, a); }
  void reset() { resource.release(); }
};

// Hands out one static block and never fails: what the virtual call alone costs.
class do_nothing_resource final : public std::pmr::memory_resource {
  alignas(64) static inline std::byte block[largest_random_size];
  void* do_allocate(std::size_t, std::size_t) override { return block; }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }
};

alloclab::multipool_options throwing_multipool() {
  alloclab::multipool_options options;
  options.oversize = alloclab::oversize_policy::throw_bad_alloc;
  return options;
}

struct multipool_pmr_peer : std_pmr_peer<alloclab::multipool_resource> {
  multipool_pmr_peer()
      : std_pmr_peer<alloclab::multipool_resource>(std::pmr::new_delete_resource(),
                                                   throwing_multipool()) {}
};

// N bytes with malloc's alignment: the element type of the allocator path's alloc+free.
template <std::size_t N>
struct alignas(alignof(std::max_align_t)) block_of {
  std::byte bytes[N];
};
static_assert(sizeof(block_of<16>) == 16 && sizeof(block_of<256>) == 256);

// Through alloclab::allocator: no virtual call, the pool's allocate inlines. `n` must be a
// multiple of sizeof(T).
template <class T>
struct multipool_allocator_peer {
  alloclab::multipool_resource pool{std::pmr::new_delete_resource(), throwing_multipool()};
  alloclab::allocator<T, alloclab::multipool_resource> allocator{&pool};
  void* alloc(std::size_t n, std::size_t) {
    if (n % sizeof(T) != 0)
      throw std::invalid_argument("multipool_allocator_peer: partial element");
    return allocator.allocate(n / sizeof(T));
  }
  void free(void* p, std::size_t n, std::size_t) {
    allocator.deallocate(static_cast<T*>(p), n / sizeof(T));
  }
  void reset() {}
};

// The same static block without a virtual call, inlined: what the workload's own loop costs
// (the floor under every row that calls its allocator directly).
struct do_nothing_inline_peer {
  alignas(64) static inline std::byte block[largest_random_size];
  void* alloc(std::size_t, std::size_t) { return block; }
  void free(void*, std::size_t, std::size_t) {}
  void reset() {}
};

struct malloc_peer {
  void* alloc(std::size_t n, std::size_t) { return std::malloc(n); }
  void free(void* p, std::size_t, std::size_t) { std::free(p); }
  void reset() {}
};

// mimalloc's shared library also defines malloc and free: linked normally it would replace glibc
// for the whole process, and every other row would measure mimalloc underneath. So it is loaded
// with RTLD_LOCAL (its symbols stay out of the global scope) and called through pointers.
struct mimalloc_api {
  void* (*malloc)(std::size_t) = nullptr;
  void (*free)(void*) = nullptr;
  bool (*owns)(const void*) = nullptr;  // mi_is_in_heap_region
};

const mimalloc_api& mimalloc() {
  static const mimalloc_api api = [] {
    mimalloc_api loaded;
    void* library = dlopen(ALLOCLAB_BENCH_MIMALLOC, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return loaded;
    loaded.malloc = reinterpret_cast<void* (*)(std::size_t)>(dlsym(library, "mi_malloc"));
    loaded.free = reinterpret_cast<void (*)(void*)>(dlsym(library, "mi_free"));
    loaded.owns = reinterpret_cast<bool (*)(const void*)>(dlsym(library, "mi_is_in_heap_region"));
    return loaded;
  }();
  return api;
}

struct mimalloc_peer {
  const mimalloc_api& mi = mimalloc();
  mimalloc_peer() {
    if (mi.malloc == nullptr || mi.free == nullptr)
      throw std::runtime_error("cannot load " ALLOCLAB_BENCH_MIMALLOC);
  }
  void* alloc(std::size_t n, std::size_t) { return mi.malloc(n); }
  void free(void* p, std::size_t, std::size_t) { mi.free(p); }
  void reset() {}
};

// foonathan's allocators ignore the alignment argument: nodes are aligned for their size.
template <std::size_t N>
struct foonathan_pool_peer {
  fm::memory_pool<fm::node_pool> pool{N, 1 << 20};
  void* alloc(std::size_t, std::size_t) { return pool.allocate_node(); }
  void free(void* p, std::size_t, std::size_t) { pool.deallocate_node(p); }
  void reset() {}
};

template <class Buckets>
struct foonathan_collection_peer {
  fm::memory_pool_collection<fm::node_pool, Buckets> pools{largest_random_size, 4 << 20};
  void* alloc(std::size_t n, std::size_t) { return pools.allocate_node(n); }
  void free(void* p, std::size_t n, std::size_t) { pools.deallocate_node(p, n); }
  void reset() {}
};

// A stack frees by unwinding to a marker: alloc takes the marker, free unwinds to it.
struct foonathan_stack_peer {
  fm::memory_stack<> stack{1 << 20};
  fm::memory_stack<>::marker mark = stack.top();
  void* alloc(std::size_t n, std::size_t a) { return stack.allocate(n, a); }
  void free(void*, std::size_t, std::size_t) { stack.unwind(mark); }
  void reset() {}
};

// ---------------------------------------------------------------------------
// Workloads

template <class Peer, std::size_t N>
void alloc_free(benchmark::State& state) {
  Peer peer;
  constexpr std::size_t alignment = alignof(std::max_align_t);
  run_batches(state, pair_batch, [&] {
    for (std::size_t i = 0; i < pair_batch; ++i) {
      void* p = peer.alloc(N, alignment);
      escape(p);
      peer.free(p, N, alignment);
    }
    peer.reset();
  });
}

constexpr std::size_t live_blocks = 64;
constexpr std::size_t size_table_length = 4096;  // a power of two

// Uniform 8..1024, fixed seed: every peer sees the same sequence.
const std::vector<std::uint32_t>& random_sizes() {
  static const std::vector<std::uint32_t> sizes = [] {
    std::mt19937 random{20261122};
    std::uniform_int_distribution<std::uint32_t> size{8, largest_random_size};
    std::vector<std::uint32_t> drawn(size_table_length);
    for (auto& s : drawn) s = size(random);
    return drawn;
  }();
  return sizes;
}

template <class Peer>
void random_live64_on(benchmark::State& state, Peer& peer) {
  const std::vector<std::uint32_t>& sizes = random_sizes();
  constexpr std::size_t alignment = 8;
  std::size_t next = static_cast<std::size_t>(state.thread_index()) * 997;
  std::array<void*, live_blocks> block{};
  std::array<std::size_t, live_blocks> block_size{};
  for (std::size_t i = 0; i < live_blocks; ++i) {
    block_size[i] = sizes[next++ % size_table_length];
    block[i] = peer.alloc(block_size[i], alignment);
  }
  run_batches(state, pair_batch, [&] {
    for (std::size_t i = 0; i < pair_batch; ++i) {
      const std::size_t slot = i % live_blocks;
      peer.free(block[slot], block_size[slot], alignment);
      const std::size_t size = sizes[next++ % size_table_length];
      block[slot] = peer.alloc(size, alignment);
      block_size[slot] = size;
      escape(block[slot]);
    }
  });
  for (std::size_t i = 0; i < live_blocks; ++i) peer.free(block[i], block_size[i], alignment);
}

template <class Peer>
void random_live64(benchmark::State& state) {
  Peer peer;
  random_live64_on(state, peer);
}

// One peer object for every thread of a threaded run, alive for the whole process (threads of
// one run start together; a function-local static is built once, thread-safely).
template <class Peer>
void random_live64_shared(benchmark::State& state) {
  static Peer peer;
  random_live64_on(state, peer);
}

// Waits a little: spins first (the other thread is usually about to move), yields after.
void back_off(unsigned& spins) {
  if (++spins < 256) {
    __builtin_ia32_pause();
  } else {
    spins = 0;
    std::this_thread::yield();
  }
}

// Producer and consumer take turns on a batch: the producer allocates it, the consumer frees it
// (every free is cross-thread), then the producer goes again. Each side times its own phase and
// the iteration's time is the sum: the hand-over and any wait for the scheduler are not counted,
// which on a shared, oversubscribed machine would otherwise be all that is measured.
template <class Peer>
void producer_consumer(benchmark::State& state) {
  using clock = std::chrono::steady_clock;
  static Peer peer;
  constexpr std::size_t alignment = 8;
  const std::vector<std::uint32_t>& sizes = random_sizes();
  struct in_flight {
    void* p;
    std::size_t size;
  };
  std::vector<in_flight> batch(pair_batch);
  enum : int { producer_turn, consumer_turn, stop };
  std::atomic<int> turn{producer_turn};
  std::atomic<std::int64_t> free_ns{0};
  std::thread consumer{[&] {
    for (unsigned spins = 0;;) {
      const int now = turn.load(std::memory_order_acquire);
      if (now == stop) return;
      if (now != consumer_turn) {
        back_off(spins);
        continue;
      }
      const auto start = clock::now();
      for (const in_flight& b : batch) peer.free(b.p, b.size, alignment);
      free_ns.store(std::chrono::nanoseconds(clock::now() - start).count(),
                    std::memory_order_relaxed);
      turn.store(producer_turn, std::memory_order_release);
    }
  }};
  std::size_t next = 0;
  try {
    for (auto _ : state) {
      const auto start = clock::now();
      for (in_flight& b : batch) {
        b.size = sizes[next++ % size_table_length];
        b.p = peer.alloc(b.size, alignment);
      }
      const auto alloc_ns = std::chrono::nanoseconds(clock::now() - start).count();
      turn.store(consumer_turn, std::memory_order_release);
      for (unsigned spins = 0; turn.load(std::memory_order_acquire) != producer_turn;)
        back_off(spins);
      state.SetIterationTime(static_cast<double>(alloc_ns + free_ns.load()) * 1e-9);
    }
  } catch (const std::exception& e) {
    ++failed_benchmarks;
    state.SkipWithError((std::string("allocation failed: ") + e.what()).c_str());
  }
  turn.store(stop, std::memory_order_release);
  consumer.join();
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(pair_batch));
}

// ---------------------------------------------------------------------------
// Registration

using std_unsync_pool = std_pmr_peer<std::pmr::unsynchronized_pool_resource>;
using std_sync_pool = std_pmr_peer<std::pmr::synchronized_pool_resource>;
using boost_unsync_pool = boost_pmr_peer<bpmr::unsynchronized_pool_resource>;
using boost_sync_pool = boost_pmr_peer<bpmr::synchronized_pool_resource>;
using do_nothing_pmr = std_pmr_peer<do_nothing_resource>;
using concurrent_multipool_pmr = std_pmr_peer<alloclab::concurrent_multipool_resource>;
using fn_collection_identity = foonathan_collection_peer<fm::identity_buckets>;
using fn_collection_log2 = foonathan_collection_peer<fm::log2_buckets>;

template <std::size_t N>
void register_alloc_free() {
  const std::string group = "peer_alloc_free_" + std::to_string(N) + "B/";
  auto add = [&](const char* name, void (*run)(benchmark::State&)) {
    benchmark::RegisterBenchmark((group + name).c_str(), run);
  };
  add("alloclab_multipool_allocator", alloc_free<multipool_allocator_peer<block_of<N>>, N>);
  add("alloclab_multipool_pmr", alloc_free<multipool_pmr_peer, N>);
  add("alloclab_concurrent_multipool_pmr", alloc_free<concurrent_multipool_pmr, N>);
  add("mi_malloc", alloc_free<mimalloc_peer, N>);
  add("malloc", alloc_free<malloc_peer, N>);
  add("foonathan_memory_pool", alloc_free<foonathan_pool_peer<N>, N>);
  add("foonathan_pool_collection_identity", alloc_free<fn_collection_identity, N>);
  add("foonathan_pool_collection_log2", alloc_free<fn_collection_log2, N>);
  add("foonathan_memory_stack", alloc_free<foonathan_stack_peer, N>);
  add("boost_monotonic_pmr", alloc_free<boost_monotonic_peer, N>);
  add("boost_unsync_pool_pmr", alloc_free<boost_unsync_pool, N>);
  add("boost_sync_pool_pmr", alloc_free<boost_sync_pool, N>);
  add("std_unsync_pool_pmr", alloc_free<std_unsync_pool, N>);
  add("std_sync_pool_pmr", alloc_free<std_sync_pool, N>);
  add("do_nothing_pmr", alloc_free<do_nothing_pmr, N>);
}

void register_random() {
  const std::string group = "peer_random_8_1024_live64/";
  auto add = [&](const char* name, void (*run)(benchmark::State&)) {
    return benchmark::RegisterBenchmark((group + name).c_str(), run);
  };
  add("alloclab_multipool_allocator", random_live64<multipool_allocator_peer<std::byte>>);
  add("alloclab_multipool_pmr", random_live64<multipool_pmr_peer>);
  add("foonathan_pool_collection_identity", random_live64<fn_collection_identity>);
  add("foonathan_pool_collection_log2", random_live64<fn_collection_log2>);
  add("boost_unsync_pool_pmr", random_live64<boost_unsync_pool>);
  add("std_unsync_pool_pmr", random_live64<std_unsync_pool>);
  add("do_nothing_pmr", random_live64<do_nothing_pmr>);
  add("do_nothing_inline", random_live64<do_nothing_inline_peer>);
  add("alloclab_concurrent_multipool_pmr", random_live64<concurrent_multipool_pmr>);
  add("mi_malloc", random_live64<mimalloc_peer>);
  add("malloc", random_live64<malloc_peer>);
  add("boost_sync_pool_pmr", random_live64<boost_sync_pool>);
  add("std_sync_pool_pmr", random_live64<std_sync_pool>);
  // Thread-safe peers again, one resource shared by 1 and then 2 threads, in real time (the
  // single-thread rows above are CPU time, like every other row).
  for (auto* b :
       {add("alloclab_concurrent_multipool_pmr", random_live64_shared<concurrent_multipool_pmr>),
        add("mi_malloc", random_live64_shared<mimalloc_peer>),
        add("malloc", random_live64_shared<malloc_peer>),
        add("boost_sync_pool_pmr", random_live64_shared<boost_sync_pool>),
        add("std_sync_pool_pmr", random_live64_shared<std_sync_pool>)}) {
    b->Threads(1)->Threads(2)->UseRealTime();
  }
}

void register_producer_consumer() {
  const std::string group = "peer_producer_consumer/";
  auto add = [&](const char* name, void (*run)(benchmark::State&)) {
    benchmark::RegisterBenchmark((group + name).c_str(), run)->UseManualTime();
  };
  add("alloclab_concurrent_multipool_pmr", producer_consumer<concurrent_multipool_pmr>);
  add("mi_malloc", producer_consumer<mimalloc_peer>);
  add("malloc", producer_consumer<malloc_peer>);
  add("boost_sync_pool_pmr", producer_consumer<boost_sync_pool>);
  add("std_sync_pool_pmr", producer_consumer<std_sync_pool>);
}

}  // namespace

bool malloc_is_not_mimalloc() {
  const mimalloc_api& mi = mimalloc();
  if (mi.owns == nullptr) return true;
  void* p = std::malloc(64);
  const bool foreign = !mi.owns(p);
  std::free(p);
  return foreign;
}

void register_peer_benchmarks() {
  // The malloc rows must be glibc's: refuse to register them otherwise.
  if (!malloc_is_not_mimalloc()) {
    std::fprintf(stderr, "alloclab_bench: malloc is mimalloc in this process; peers not run\n");
    ++failed_benchmarks;
    return;
  }
  register_alloc_free<16>();
  register_alloc_free<64>();
  register_alloc_free<256>();
  register_random();
  register_producer_consumer();
}

}  // namespace alloclab_bench
