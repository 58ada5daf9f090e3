// alloclab_bench: the alloclab microbenchmarks (Google Benchmark).
//
// Side by side in one run:
//   arena_alloc_64B        64-byte allocations from a bump arena: alloclab::arena_resource
//                          through std::pmr::memory_resource& (virtual) and through
//                          alloclab::allocator (inlined), std::pmr::monotonic_buffer_resource,
//                          and a hand-written inlined pointer bump (the floor).
//   arena_in_memory_64B    the arena through alloclab::allocator against the same bump floor,
//                          each reached through an escaped holder (as a container holds its
//                          allocator): resource pointer, cursor and limit all live in memory.
//   arena_probe_64B        the strictest: the arena through alloclab::allocator against a bump in a
//                          static, 2^20 calls, results to an asm sink that clobbers no memory.
//   arena_runtime_request_64B  the same, with sizes and alignment read at run time.
//   pool_alloc_free_<N>B   allocate + deallocate of N = 16/64/256 bytes: alloclab::pool_resource
//                          (virtual and inlined), std::pmr::unsynchronized_pool_resource, malloc/free.
//   vector_push_back_1000  1000 push_back of a 64-byte struct, with and without reserve, into
//                          std::pmr::vector and std::vector<T, alloclab::allocator<T, R>> on each
//                          resource, and std::vector<T> (std::allocator) as the baseline.
//
// Honesty rules (seed 000):
//   * The binary refuses to run unless this translation unit is optimised, has NDEBUG and no
//     sanitizers (alloclab::build::benchmark_ready); `--allow-debug` overrides, and the build
//     description is recorded in the JSON context either way.
//   * Every arena gets std::pmr::null_memory_resource() as upstream (alloclab arenas also
//     overflow_policy::throw_bad_alloc), pools refuse oversize requests: an undersized buffer
//     throws, the benchmark is marked as an error and the process exits non-zero. Nothing
//     silently falls back to the heap.
//   * Each timed iteration is a fixed batch of operations; resets (arena release) happen once per
//     batch, inside the timing, amortised over the batch (no PauseTiming).
//   * Every allocated pointer escapes through benchmark::DoNotOptimize, so no allocation can be
//     deleted; calls "via pmr" go through a pointer whose dynamic type the compiler cannot see,
//     so they stay virtual.
//   * items_per_second and per_item (CPU seconds per operation) are reported per operation.
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/build_info.hpp>
#include <alloclab/pool_resource.hpp>

#include <benchmark/benchmark.h>

#include "bench_support.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <new>
#include <string>
#include <vector>

#ifndef ALLOCLAB_BENCH_BUILD_TYPE
#define ALLOCLAB_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef ALLOCLAB_BENCH_CXX_FLAGS
#define ALLOCLAB_BENCH_CXX_FLAGS "unknown"
#endif

namespace {

using namespace alloclab_bench;

// ---------------------------------------------------------------------------
// Shared helpers

// A 64-byte payload with the alignment a typical struct of words has.
struct record64 {
  std::uint64_t words[8];
};
static_assert(sizeof(record64) == 64 && alignof(record64) == 8);

// An N-byte block with malloc's alignment, for the pool benchmarks.
template <std::size_t N>
struct alignas(alignof(std::max_align_t)) blob {
  std::byte bytes[N];
};

constexpr std::size_t max_align = alignof(std::max_align_t);

alloclab::arena_options throwing_arena() {
  alloclab::arena_options options;
  options.policy = alloclab::overflow_policy::throw_bad_alloc;
  return options;
}

alloclab::pool_options throwing_pool(std::size_t first_chunk_blocks = 32) {
  alloclab::pool_options options;
  options.oversize = alloclab::oversize_policy::throw_bad_alloc;
  options.first_chunk_blocks = first_chunk_blocks;
  return options;
}

// ---------------------------------------------------------------------------
// (a) Arena allocate, 64 B

constexpr std::size_t arena_batch = 1024;  // allocations per timed iteration
constexpr std::size_t arena_bytes = arena_batch * sizeof(record64);  // exact: no slack at all

// The floor: what a hand-written bump allocator inlined at the call site costs. It does what any
// correct bump must do (align the cursor, bounds check, advance) and nothing else. Like every
// allocator object a container points to, its state lives in memory (its address escapes).
class inline_bump {
 public:
  inline_bump(std::byte* buffer, std::size_t size)
      : begin_(buffer), cursor_(buffer), limit_(buffer + size) {}

  // Align up, compare with the end, advance: the shortest chain from one cursor to the next
  // (three operations). A floor that adds the padding to the cursor instead (four) hid 30 % of
  // the arena's cost: a loop of allocations runs at the speed of that chain.
  BENCHMARK_ALWAYS_INLINE void* allocate(std::size_t bytes, std::size_t alignment) {
    const std::uintptr_t aligned =
        (reinterpret_cast<std::uintptr_t>(cursor_) + alignment - 1) & ~(alignment - 1);
    if (aligned + bytes > reinterpret_cast<std::uintptr_t>(limit_)) exhausted();
    cursor_ = reinterpret_cast<std::byte*>(aligned + bytes);
    return reinterpret_cast<void*>(aligned);
  }
  void reset() noexcept { cursor_ = begin_; }

 private:
  [[noreturn, gnu::noinline, gnu::cold]] static void exhausted() { throw std::bad_alloc(); }

  std::byte* begin_;
  std::byte* cursor_;
  std::byte* limit_;
};

void arena_bump_inline(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  inline_bump bump{buffer.data(), buffer.size()};
  inline_bump* escaped = &bump;
  benchmark::DoNotOptimize(escaped);  // its state lives in memory, as the arena's does
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(bump.allocate(sizeof(record64), alignof(record64)));
    bump.reset();
  });
}

void arena_alloclab_allocator(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource(),
                                 throwing_arena()};
  alloclab::allocator<record64, alloclab::arena_resource> alloc{&arena};
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i) escape(alloc.allocate(1));
    arena.release();
  });
}

void arena_alloclab_pmr(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource(),
                                 throwing_arena()};
  std::pmr::memory_resource& resource = *opaque<std::pmr::memory_resource>(&arena);
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(resource.allocate(sizeof(record64), alignof(record64)));
    arena.release();
  });
}

void arena_std_monotonic_pmr(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  std::pmr::monotonic_buffer_resource monotonic{buffer.data(), buffer.size(),
                                                std::pmr::null_memory_resource()};
  std::pmr::memory_resource& resource = *opaque<std::pmr::memory_resource>(&monotonic);
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(resource.allocate(sizeof(record64), alignof(record64)));
    monotonic.release();
  });
}

// (a') The same, with every piece of allocator state in memory, as a container sees it: the
// container holds an allocator (or a pointer to its bump), the holder's address escapes, so every
// allocation loads the resource pointer, then the cursor and limit, and stores the cursor back.
// The floor is the same inline_bump, reached the same way. Two request streams: the constant
// 64 B / alignment 8 of alloclab::allocator<record64>, and sizes and an alignment read from memory
// at run time (all 64 and 8, unknown to the compiler), so neither side can fold the alignment
// arithmetic or the size checks away.

struct bump_holder {
  inline_bump* bump;
};
struct arena_holder {
  alloclab::allocator<record64, alloclab::arena_resource> alloc;
};

// Request sizes and alignment the optimiser cannot see.
struct runtime_requests {
  std::size_t sizes[arena_batch];
  std::size_t alignment = alignof(record64);
  runtime_requests() {
    for (std::size_t& size : sizes) size = sizeof(record64);
    benchmark::DoNotOptimize(sizes);
    benchmark::DoNotOptimize(alignment);
  }
};

void arena_in_memory_bump(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  inline_bump bump{buffer.data(), buffer.size()};
  bump_holder holder{&bump};
  bump_holder* const h = opaque(&holder);
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(h->bump->allocate(sizeof(record64), alignof(record64)));
    h->bump->reset();
  });
}

void arena_in_memory_alloclab_allocator(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource(),
                                 throwing_arena()};
  arena_holder holder{alloclab::allocator<record64, alloclab::arena_resource>{&arena}};
  arena_holder* const h = opaque(&holder);
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i) escape(h->alloc.allocate(1));
    h->alloc.resource()->release();
  });
}

void arena_runtime_request_bump(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  inline_bump bump{buffer.data(), buffer.size()};
  bump_holder holder{&bump};
  bump_holder* const h = opaque(&holder);
  const runtime_requests requests;
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(h->bump->allocate(requests.sizes[i], requests.alignment));
    h->bump->reset();
  });
}

void arena_runtime_request_alloclab(benchmark::State& state) {
  aligned_buffer buffer{arena_bytes};
  alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource(),
                                 throwing_arena()};
  arena_holder holder{alloclab::allocator<record64, alloclab::arena_resource>{&arena}};
  arena_holder* const h = opaque(&holder);
  const runtime_requests requests;
  run_batches(state, arena_batch, [&] {
    for (std::size_t i = 0; i < arena_batch; ++i)
      escape(h->alloc.resource()->allocate(requests.sizes[i], requests.alignment));
    h->alloc.resource()->release();
  });
}

// (a'') The strictest form, as an independent probe measured it: the bump's state is a static
// whose address escapes, each result goes to an empty asm statement that clobbers no memory
// (escape() is DoNotOptimize, whose "memory" clobber forces both sides to reload and store every
// piece of state each call and levels them), and 2^20 calls run between resets. With no clobber
// the compiler keeps the bump's cursor in a register, while the arena's cursor stays in memory
// (its overflow path returns into the loop): the arena is measured with its cursor in memory
// against the fastest bump the compiler can make.
constexpr std::size_t probe_calls = std::size_t{1} << 20;
alignas(64) std::byte probe_buffer[probe_calls * sizeof(record64)];  // never touched
inline_bump probe_bump{probe_buffer, sizeof probe_buffer};
inline_bump* volatile probe_bump_escaped = &probe_bump;

void arena_probe_bump(benchmark::State& state) {
  run_batches(state, probe_calls, [] {
    for (std::size_t i = 0; i < probe_calls; ++i)
      sink(probe_bump.allocate(sizeof(record64), alignof(record64)));
    probe_bump.reset();
  });
}

void arena_probe_alloclab_allocator(benchmark::State& state) {
  static alloclab::arena_resource arena{probe_buffer, sizeof probe_buffer,
                                        std::pmr::null_memory_resource(), throwing_arena()};
  alloclab::arena_resource* volatile escaped = &arena;
  alloclab::allocator<record64, alloclab::arena_resource> alloc{&arena};
  run_batches(state, probe_calls, [&] {
    for (std::size_t i = 0; i < probe_calls; ++i) sink(alloc.allocate(1));
    arena.release();
  });
  (void)escaped;
}

// ---------------------------------------------------------------------------
// (b) Pool allocate + deallocate, N bytes

constexpr std::size_t pool_batch = 1024;  // allocate+deallocate pairs per timed iteration

template <std::size_t N>
void pool_alloclab_allocator(benchmark::State& state) {
  alloclab::pool_resource pool{N, std::pmr::new_delete_resource(), throwing_pool()};
  alloclab::allocator<blob<N>, alloclab::pool_resource> alloc{&pool};
  run_batches(state, pool_batch, [&] {
    for (std::size_t i = 0; i < pool_batch; ++i) {
      blob<N>* p = alloc.allocate(1);
      escape(p);
      alloc.deallocate(p, 1);
    }
  });
}

template <std::size_t N>
void pmr_alloc_free(benchmark::State& state, std::pmr::memory_resource& resource) {
  run_batches(state, pool_batch, [&] {
    for (std::size_t i = 0; i < pool_batch; ++i) {
      void* p = resource.allocate(N, max_align);
      escape(p);
      resource.deallocate(p, N, max_align);
    }
  });
}

template <std::size_t N>
void pool_alloclab_pmr(benchmark::State& state) {
  alloclab::pool_resource pool{N, std::pmr::new_delete_resource(), throwing_pool()};
  pmr_alloc_free<N>(state, *opaque<std::pmr::memory_resource>(&pool));
}

template <std::size_t N>
void pool_std_unsynchronized_pmr(benchmark::State& state) {
  std::pmr::unsynchronized_pool_resource pool{std::pmr::new_delete_resource()};
  pmr_alloc_free<N>(state, *opaque<std::pmr::memory_resource>(&pool));
}

template <std::size_t N>
void pool_malloc_free(benchmark::State& state) {
  run_batches(state, pool_batch, [&] {
    for (std::size_t i = 0; i < pool_batch; ++i) {
      void* p = std::malloc(N);
      escape(p);
      std::free(p);
    }
  });
}

// ---------------------------------------------------------------------------
// (c) 1000 push_back of a 64-byte struct

constexpr std::size_t vector_elements = 1000;
// Without reserve, libstdc++ grows 1, 2, 4, ..., 1024 and a monotonic arena keeps every old
// buffer: 2047 * 64 = 131008 bytes. 256 KiB leaves room for another growth policy; if it is ever
// too small the null upstream makes the benchmark fail instead of measuring the heap.
constexpr std::size_t vector_arena_bytes = 256 * 1024;
// A fixed-block pool must hold the largest vector buffer: capacity 1024 * 64 bytes.
constexpr std::size_t vector_pool_block = 1024 * sizeof(record64);

// The element pushed. It is written once, before timing, and its address escapes: building a
// fresh record per push_back (8-byte stores re-read as 16-byte loads) made the copy stall on
// store forwarding in some instantiations and not others, and that stall, not the allocator,
// decided the ranking. Every push_back copies the same 64 bytes from L1.
template <class Vector>
BENCHMARK_ALWAYS_INLINE inline void fill(Vector& v, bool reserve, const record64& element) {
  if (reserve) v.reserve(vector_elements);
  for (std::size_t i = 0; i < vector_elements; ++i) v.push_back(element);
  benchmark::DoNotOptimize(v.data());
  benchmark::ClobberMemory();  // the elements were written somewhere observable
}

record64 make_element() {
  record64 r{};
  for (std::size_t i = 0; i < 8; ++i) r.words[i] = 0x0123456789abcdefULL * (i + 1);
  return r;
}

// One struct per resource: how to build it for the vector benchmark and how to reset it.
struct arena_fixture {
  using resource_type = alloclab::arena_resource;
  aligned_buffer buffer{vector_arena_bytes};
  alloclab::arena_resource resource{buffer.data(), buffer.size(), std::pmr::null_memory_resource(),
                                    throwing_arena()};
  void reset() noexcept { resource.release(); }
};

struct pool_fixture {
  using resource_type = alloclab::pool_resource;
  alloclab::pool_resource resource{vector_pool_block, std::pmr::new_delete_resource(),
                                   throwing_pool(4)};
  void reset() noexcept {}
};

struct monotonic_fixture {
  using resource_type = std::pmr::monotonic_buffer_resource;
  aligned_buffer buffer{vector_arena_bytes};
  std::pmr::monotonic_buffer_resource resource{buffer.data(), buffer.size(),
                                               std::pmr::null_memory_resource()};
  void reset() noexcept { resource.release(); }
};

struct unsynchronized_pool_fixture {
  using resource_type = std::pmr::unsynchronized_pool_resource;
  std::pmr::unsynchronized_pool_resource resource{std::pmr::new_delete_resource()};
  void reset() noexcept {}
};

template <class Fixture>
void vector_pmr(benchmark::State& state, bool reserve) {
  Fixture fixture;
  std::pmr::memory_resource* resource = opaque<std::pmr::memory_resource>(&fixture.resource);
  record64 element = make_element();
  benchmark::DoNotOptimize(element);
  run_batches(state, vector_elements, [&] {
    {
      std::pmr::vector<record64> v{resource};
      fill(v, reserve, element);
    }
    fixture.reset();
  });
}

template <class Fixture>
void vector_alloclab_allocator(benchmark::State& state, bool reserve) {
  using alloc = alloclab::allocator<record64, typename Fixture::resource_type>;
  Fixture fixture;
  record64 element = make_element();
  benchmark::DoNotOptimize(element);
  run_batches(state, vector_elements, [&] {
    {
      std::vector<record64, alloc> v{alloc{&fixture.resource}};
      fill(v, reserve, element);
    }
    fixture.reset();
  });
}

void vector_std_allocator(benchmark::State& state, bool reserve) {
  record64 element = make_element();
  benchmark::DoNotOptimize(element);
  run_batches(state, vector_elements, [&] {
    std::vector<record64> v;
    fill(v, reserve, element);
  });
}

// ---------------------------------------------------------------------------

void register_benchmarks() {
  using benchmark::RegisterBenchmark;
  RegisterBenchmark("arena_alloc_64B/bump_inline", arena_bump_inline);
  RegisterBenchmark("arena_alloc_64B/alloclab_arena_allocator", arena_alloclab_allocator);
  RegisterBenchmark("arena_alloc_64B/alloclab_arena_pmr", arena_alloclab_pmr);
  RegisterBenchmark("arena_alloc_64B/std_monotonic_pmr", arena_std_monotonic_pmr);
  RegisterBenchmark("arena_in_memory_64B/bump_in_memory", arena_in_memory_bump);
  RegisterBenchmark("arena_in_memory_64B/alloclab_arena_allocator",
                    arena_in_memory_alloclab_allocator);
  RegisterBenchmark("arena_probe_64B/bump_static", arena_probe_bump);
  RegisterBenchmark("arena_probe_64B/alloclab_arena_allocator", arena_probe_alloclab_allocator);
  RegisterBenchmark("arena_runtime_request_64B/bump_in_memory", arena_runtime_request_bump);
  RegisterBenchmark("arena_runtime_request_64B/alloclab_arena", arena_runtime_request_alloclab);

  RegisterBenchmark("pool_alloc_free_16B/alloclab_pool_allocator", pool_alloclab_allocator<16>);
  RegisterBenchmark("pool_alloc_free_16B/alloclab_pool_pmr", pool_alloclab_pmr<16>);
  RegisterBenchmark("pool_alloc_free_16B/std_unsynchronized_pool_pmr",
                    pool_std_unsynchronized_pmr<16>);
  RegisterBenchmark("pool_alloc_free_16B/malloc_free", pool_malloc_free<16>);
  RegisterBenchmark("pool_alloc_free_64B/alloclab_pool_allocator", pool_alloclab_allocator<64>);
  RegisterBenchmark("pool_alloc_free_64B/alloclab_pool_pmr", pool_alloclab_pmr<64>);
  RegisterBenchmark("pool_alloc_free_64B/std_unsynchronized_pool_pmr",
                    pool_std_unsynchronized_pmr<64>);
  RegisterBenchmark("pool_alloc_free_64B/malloc_free", pool_malloc_free<64>);
  RegisterBenchmark("pool_alloc_free_256B/alloclab_pool_allocator", pool_alloclab_allocator<256>);
  RegisterBenchmark("pool_alloc_free_256B/alloclab_pool_pmr", pool_alloclab_pmr<256>);
  RegisterBenchmark("pool_alloc_free_256B/std_unsynchronized_pool_pmr",
                    pool_std_unsynchronized_pmr<256>);
  RegisterBenchmark("pool_alloc_free_256B/malloc_free", pool_malloc_free<256>);

  for (const bool reserve : {false, true}) {
    const std::string group = reserve ? "vector_push_back_1000_reserve/" : "vector_push_back_1000/";
    RegisterBenchmark((group + "std_allocator").c_str(), vector_std_allocator, reserve);
    RegisterBenchmark((group + "alloclab_arena_allocator").c_str(),
                      vector_alloclab_allocator<arena_fixture>, reserve);
    RegisterBenchmark((group + "alloclab_arena_pmr").c_str(), vector_pmr<arena_fixture>, reserve);
    RegisterBenchmark((group + "std_monotonic_allocator").c_str(),
                      vector_alloclab_allocator<monotonic_fixture>, reserve);
    RegisterBenchmark((group + "std_monotonic_pmr").c_str(), vector_pmr<monotonic_fixture>,
                      reserve);
    RegisterBenchmark((group + "alloclab_pool_allocator").c_str(),
                      vector_alloclab_allocator<pool_fixture>, reserve);
    RegisterBenchmark((group + "alloclab_pool_pmr").c_str(), vector_pmr<pool_fixture>, reserve);
    RegisterBenchmark((group + "std_unsynchronized_pool_allocator").c_str(),
                      vector_alloclab_allocator<unsynchronized_pool_fixture>, reserve);
    RegisterBenchmark((group + "std_unsynchronized_pool_pmr").c_str(),
                      vector_pmr<unsynchronized_pool_fixture>, reserve);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Our own flag first: Google Benchmark rejects flags it does not know.
  bool allow_debug = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--allow-debug") == 0) {
      allow_debug = true;
    } else {
      args.push_back(argv[i]);
    }
  }

  const char* const build = alloclab::build::describe();
  std::fprintf(stderr, "alloclab_bench: build: %s (%s, %s)\n", build, ALLOCLAB_BENCH_BUILD_TYPE,
               ALLOCLAB_BENCH_CXX_FLAGS);
  if (!alloclab::build::benchmark_ready && !allow_debug) {
    std::fprintf(
        stderr,
        "alloclab_bench: refusing to run: %s; configure with -DCMAKE_BUILD_TYPE=Release, or pass "
        "--allow-debug to get numbers that mean nothing\n",
        build);
    return 2;
  }

  benchmark::AddCustomContext("alloclab_build", build);
  benchmark::AddCustomContext("alloclab_benchmark_ready",
                              alloclab::build::benchmark_ready ? "true" : "false");
  benchmark::AddCustomContext("alloclab_build_type", ALLOCLAB_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("alloclab_cxx_flags", ALLOCLAB_BENCH_CXX_FLAGS);
  benchmark::AddCustomContext("alloclab_compiler", __VERSION__);
  if (!alloclab::build::benchmark_ready) {
    benchmark::AddCustomContext("alloclab_warning",
                                "--allow-debug: these numbers do not measure an optimised build");
  }

  register_benchmarks();
  register_peer_benchmarks();
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (failed_benchmarks != 0) {
    std::fprintf(stderr,
                 "alloclab_bench: %d benchmark(s) failed; their numbers were not reported\n",
                 failed_benchmarks.load());
    return 1;
  }
  return 0;
}
