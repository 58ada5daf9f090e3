// Worst case per call, in instructions: each component's allocate and
// deallocate (and the arena's rewind) over adversarial sequences, beside
// glibc malloc and dlmalloc. Run under callgrind (bench/worst_case_table.py
// does): every measured call is collected alone and dumped with its label,
// so the table is deterministic, not a timing. Outside valgrind the client
// requests do nothing and the program only runs the sequences.
//
// The alloclab resources take their memory from a bump upstream over a
// static buffer, so an upstream call costs a few dozen instructions and the
// figures are the resource's own; malloc's figures include its system calls'
// user-space side only (valgrind does not count the kernel).
#include <alloclab/arena_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/multipool_resource.hpp>
#include <alloclab/pool_resource.hpp>

#include <valgrind/callgrind.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory_resource>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#if ALLOCLAB_BENCH_DLMALLOC
extern "C" void* dlmalloc(std::size_t);
extern "C" void dlfree(void*);
#endif

namespace {

// Runs `call` with collection on and dumps its count under `label`.
template <class Call>
[[gnu::noinline]] void measure(const char* label, Call&& call) {
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
  call();
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(label);
}

constexpr int calls_per_sequence = 256;

std::pmr::memory_resource* bump_upstream() {
  alignas(65536) static std::byte memory[96 << 20];
  static std::pmr::monotonic_buffer_resource bump{memory, sizeof memory,
                                                  std::pmr::null_memory_resource()};
  return &bump;
}

// Arena, growth factor 1.0: overflows right after a rewind over 2 000 kept
// blocks each too small for the request, then rewinds over 4 096 blocks.
void arena_sequences() {
  alloclab::arena_resource arena{
      nullptr, 0, bump_upstream(), {alloclab::overflow_policy::grow, 1.0, 1024, {}}};
  const alloclab::arena_mark start = arena.mark();
  for (int i = 0; i < 2000; ++i) (void)arena.allocate(1000, 8);
  arena.rewind(start);
  for (int i = 0; i < calls_per_sequence; ++i) {
    const std::size_t bytes = i % 2 ? 2000 : 64;  // every other one overflows
    measure("arena_resource allocate", [&] { (void)arena.allocate(bytes, 8); });
    measure("arena_resource deallocate", [&] { arena.deallocate(nullptr, bytes, 8); });
  }
  std::mt19937 random{1};
  for (int i = 0; i < 32; ++i) {
    arena.rewind(start);
    std::vector<alloclab::arena_mark> marks;
    for (int block = 0; block < 4096; ++block) {
      marks.push_back(arena.mark());
      (void)arena.allocate(1000, 8);
    }
    const alloclab::arena_mark& target = marks[random() % marks.size()];
    measure("arena_resource rewind", [&] { arena.rewind(target); });
  }
}

// Pool: small chunks, so allocations cross chunk boundaries; frees in random order.
void pool_sequences() {
  alloclab::pool_resource pool{
      64, bump_upstream(), {alloclab::oversize_policy::forward_to_upstream, 2, 16, 0}};
  std::vector<void*> blocks;
  blocks.reserve(calls_per_sequence);  // no vector growth inside a measured call
  for (int i = 0; i < calls_per_sequence; ++i)
    measure("pool_resource allocate", [&] { blocks.push_back(pool.allocate(64, 8)); });
  std::shuffle(blocks.begin(), blocks.end(), std::mt19937{2});
  for (void* p : blocks) measure("pool_resource deallocate", [&] { pool.deallocate(p, 64, 8); });
}

// Multipool: every size up to 4 KiB in turn (each class's first block takes
// a chunk, each refill links a batch), random frees.
void multipool_sequences() {
  alloclab::multipool_resource pool{bump_upstream()};
  std::mt19937 random{3};
  std::vector<std::pair<void*, std::size_t>> blocks;
  blocks.reserve(4 * calls_per_sequence);
  for (int i = 0; i < 4 * calls_per_sequence; ++i) {
    const std::size_t bytes = 1 + random() % 4096;
    measure("multipool_resource allocate",
            [&] { blocks.emplace_back(pool.allocate(bytes, 8), bytes); });
  }
  std::shuffle(blocks.begin(), blocks.end(), random);
  for (const std::pair<void*, std::size_t>& block : blocks)
    measure("multipool_resource deallocate",
            [&] { pool.deallocate(block.first, block.second, 8); });
}

// Concurrent pool: another thread frees 10 000 of this thread's blocks, then
// this thread allocates (each refill drains a batch); remote frees; each
// new thread's first allocate (it creates or adopts a cache).
void concurrent_sequences() {
  alloclab::concurrent_multipool_resource pool{bump_upstream()};
  std::vector<void*> blocks;
  for (int i = 0; i < 10000; ++i) blocks.push_back(pool.allocate(64, 8));
  std::thread remote{[&] {
    for (int i = 0; i < calls_per_sequence; ++i) {
      void* p = blocks.back();
      blocks.pop_back();
      measure("concurrent_multipool_resource deallocate (remote)",
              [&] { pool.deallocate(p, 64, 8); });
    }
    for (void* p : blocks) pool.deallocate(p, 64, 8);
  }};
  remote.join();
  blocks.clear();  // keeps its capacity: no growth inside a measured call
  for (int i = 0; i < 4 * calls_per_sequence; ++i)
    measure("concurrent_multipool_resource allocate",
            [&] { blocks.push_back(pool.allocate(64, 8)); });
  for (void* p : blocks)
    measure("concurrent_multipool_resource deallocate", [&] { pool.deallocate(p, 64, 8); });
  for (int i = 0; i < 8; ++i) {
    std::thread newcomer{[&] {
      void* p = nullptr;
      measure("concurrent_multipool_resource first allocate of a thread",
              [&] { p = pool.allocate(64, 8); });
      pool.deallocate(p, 64, 8);
    }};
    newcomer.join();
  }
}

// A general-purpose heap: random sizes up to 4 KiB with a few of 64 KiB and
// 256 KiB (past the mmap threshold), up to 512 live, freed in random order.
template <class Malloc, class Free>
void heap_sequences(const char* allocate_label, const char* free_label, Malloc heap_malloc,
                    Free heap_free) {
  std::mt19937 random{4};
  std::vector<void*> live;
  for (int i = 0; i < 4 * calls_per_sequence; ++i) {
    const unsigned pick = random() % 64;
    const std::size_t bytes = pick == 0 ? 256 << 10 : pick == 1 ? 64 << 10 : 1 + random() % 4096;
    void* p = nullptr;
    measure(allocate_label, [&] { p = heap_malloc(bytes); });
    live.push_back(p);
    if (live.size() < 512 && random() % 3 != 0) continue;
    std::swap(live[random() % live.size()], live.back());
    void* victim = live.back();
    live.pop_back();
    measure(free_label, [&] { heap_free(victim); });
  }
  for (void* p : live) heap_free(p);
}

}  // namespace

int main() {
  arena_sequences();
  pool_sequences();
  multipool_sequences();
  concurrent_sequences();
  heap_sequences(
      "glibc malloc", "glibc free", [](std::size_t n) { return std::malloc(n); },
      [](void* p) { std::free(p); });
#if ALLOCLAB_BENCH_DLMALLOC
  heap_sequences(
      "dlmalloc malloc", "dlmalloc free", [](std::size_t n) { return dlmalloc(n); },
      [](void* p) { dlfree(p); });
#endif
  return 0;
}
