// Four threads: two producers allocate blocks of random sizes and queue them, two consumers take
// them off the shared queue and free them (every such free is cross-thread). The queue is
// unbounded, so its backlog, and with it the peak live set, depends on how fast each side runs:
// a trace whose replay cannot predict a malloc's effect (trace/replay_trust.hpp). Each thread
// also keeps a small working set of its own. A fixture of the replay-trust tests and of
// bench/replay_trust_table.sh.
// Usage: trace_producer_consumer [BLOCKS PER PRODUCER (default 200000)]
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct queue {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<void*> blocks;
  int producers_left = 2;
};

std::uint64_t next_random(std::uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

void produce(queue& q, long blocks, std::uint64_t seed) {
  std::uint64_t state = seed;
  void* local[64] = {};
  for (long i = 0; i < blocks; ++i) {
    const std::uint64_t r = next_random(state);
    void* p = std::malloc(32 + r % 4064);
    static_cast<volatile char*>(p)[0] = 1;
    auto& l = local[r % 64];
    std::free(l);
    l = std::malloc(16 + (r >> 12) % 240);
    {
      const std::lock_guard<std::mutex> g(q.mutex);
      q.blocks.push_back(p);
    }
    q.ready.notify_one();
  }
  for (void* p : local) std::free(p);
  const std::lock_guard<std::mutex> g(q.mutex);
  --q.producers_left;
  q.ready.notify_all();
}

void consume(queue& q) {
  for (;;) {
    void* p = nullptr;
    {
      std::unique_lock<std::mutex> g(q.mutex);
      q.ready.wait(g, [&] { return !q.blocks.empty() || q.producers_left == 0; });
      if (q.blocks.empty()) return;
      p = q.blocks.front();
      q.blocks.pop_front();
    }
    static_cast<volatile char*>(p)[1] = 2;
    std::free(p);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const long blocks = argc > 1 ? std::atol(argv[1]) : 200000;
  queue q;
  std::vector<std::thread> threads;
  threads.emplace_back(produce, std::ref(q), blocks, 0x9E3779B97F4A7C15ull);
  threads.emplace_back(produce, std::ref(q), blocks, 0xD1B54A32D192ED03ull);
  threads.emplace_back(consume, std::ref(q));
  threads.emplace_back(consume, std::ref(q));
  for (auto& t : threads) t.join();
  return 0;
}
