// The malloc-bound loop: random 16-271 B malloc/free over 64 slots. Prints the wall
// time per pair; `alloclab record` and heaptrack are measured on it (docs/trace-format.md).
// Usage: trace_malloc_loop [PAIRS (default 4000000)] [--track-live]
// --track-live also prints the peak of the bytes it holds (the tests compare it with the trace's).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

int main(int argc, char** argv) {
  const long pairs = argc > 1 ? std::atol(argv[1]) : 4'000'000;
  if (pairs <= 0) {
    std::fprintf(stderr, "usage: %s [PAIRS > 0] [--track-live]\n", argv[0]);
    return 2;
  }
  const bool track_live = argc > 2 && std::strcmp(argv[2], "--track-live") == 0;
  constexpr int slots = 64;
  void* block[slots] = {};
  std::size_t held[slots] = {};
  std::size_t live = 0, peak = 0;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;  // xorshift64: same sequence every run
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  for (long i = 0; i < pairs; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const auto slot = static_cast<int>(state % slots);
    const auto size = static_cast<std::size_t>(16 + (state >> 8) % 256);
    std::free(block[slot]);
    block[slot] = std::malloc(size);
    static_cast<volatile char*>(block[slot])[0] = 1;
    if (track_live) {
      live = live - held[slot] + size;
      held[slot] = size;
      if (live > peak) peak = live;
    }
  }
  const auto stop = std::chrono::steady_clock::now();
  const std::clock_t cpu_stop = std::clock();
  for (void* p : block) std::free(p);
  const double ns = std::chrono::duration<double, std::nano>(stop - start).count();
  const double cpu_ns = 1e9 * static_cast<double>(cpu_stop - cpu_start) / CLOCKS_PER_SEC;
  std::printf("%ld pairs, %.1f ns per pair (wall), %.1f ns per pair (process CPU)\n", pairs,
              ns / static_cast<double>(pairs), cpu_ns / static_cast<double>(pairs));
  if (track_live) std::printf("peak live bytes %zu\n", peak);
  return 0;
}
