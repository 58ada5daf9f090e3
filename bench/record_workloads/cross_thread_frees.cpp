// Four threads in a ring: each allocates blocks of random sizes and hands them to the next
// thread, which frees them; each also keeps a local working set it mallocs and frees itself.
// A workload for scripts/record-overhead.sh: cross-thread frees under `alloclab record`.
// Usage: record_cross_thread_frees [ROUNDS (default 1000000 per thread)]
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int thread_count = 4;
constexpr std::size_t ring_slots = 1024;

struct ring {
  std::atomic<void*> slot[ring_slots] = {};
};

void worker(int self, long rounds, ring* rings) {
  ring& out = rings[(self + 1) % thread_count];
  ring& in = rings[self];
  std::uint64_t state = 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(self + 1);
  void* local[256] = {};
  for (long i = 0; i < rounds; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const auto size = static_cast<std::size_t>(16 + (state >> 8) % 500);
    auto& l = local[state % 256];
    std::free(l);
    l = std::malloc(size);
    static_cast<volatile char*>(l)[0] = 1;
    if (i % 2 == 0) {
      void* p = std::malloc(size);
      static_cast<volatile char*>(p)[0] = 2;
      std::free(out.slot[(state >> 20) % ring_slots].exchange(p, std::memory_order_acq_rel));
    }
    std::free(in.slot[(state >> 30) % ring_slots].exchange(nullptr, std::memory_order_acq_rel));
  }
  for (void* p : local) std::free(p);
}

}  // namespace

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? std::atol(argv[1]) : 1000000;
  std::vector<ring> rings(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) threads.emplace_back(worker, t, rounds, rings.data());
  for (auto& t : threads) t.join();
  for (auto& r : rings)
    for (auto& s : r.slot) std::free(s.load());
  std::printf("done\n");
  return 0;
}
