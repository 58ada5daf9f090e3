// Test plan: concurrent_multipool_resource under thread turnover (regression
// tests and the turnover stress). Runs under ASan and TSan (the
// `sanitize` and `tsan` presets).
//
// | property                                              | test case                                   |
// |-------------------------------------------------------|---------------------------------------------|
// | no lock held across an upstream call that thread exit | thread_exit_during_a_refill_from_another_pool_does_not_deadlock |
// | also takes (pools as upstreams, 8+ registry entries)  |                                             |
// | thousands of short-lived threads; pools created and   | thousands_of_threads_and_pools_come_and_go  |
// | destroyed while threads hold caches; pools as         |                                             |
// | upstreams; allocations in late thread_local dtors     |                                             |
#include <alloclab/checked_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/synchronized_resource.hpp>

#include <gtest/gtest.h>

#include "block_exchange.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace alloclab;
using namespace std::chrono_literals;

// Runs `scenario`; aborts the test process (so the test fails instead of
// hanging) if it has not finished after `limit`.
template <class Scenario>
void finishes_or_aborts(std::chrono::seconds limit, const char* what, Scenario scenario) {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
  std::thread watchdog{[&] {
    std::unique_lock<std::mutex> lock{mutex};
    if (!finished_cv.wait_for(lock, limit, [&] { return finished; })) {
      std::fprintf(stderr, "watchdog: %s did not finish in %lld s: deadlock\n", what,
                   static_cast<long long>(limit.count()));
      std::abort();
    }
  }};
  scenario();
  {
    const std::lock_guard<std::mutex> lock{mutex};
    finished = true;
  }
  finished_cv.notify_all();
  watchdog.join();
}

// A one-shot signal between threads.
class event {
 public:
  void set() {
    {
      const std::lock_guard<std::mutex> lock{mutex_};
      set_ = true;
    }
    changed_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock{mutex_};
    changed_.wait(lock, [&] { return set_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool set_ = false;
};

// An upstream that, once armed, announces each allocation and then takes its
// time before forwarding it: a window in which another thread exits.
class slow_upstream final : public std::pmr::memory_resource {
 public:
  explicit slow_upstream(std::pmr::memory_resource* next) : next_(next) {}
  void arm() { armed_ = true; }
  event entered;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (armed_.exchange(false)) {
      entered.set();
      std::this_thread::sleep_for(200ms);
    }
    return next_->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    next_->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::pmr::memory_resource* next_;
  std::atomic<bool> armed_{false};
};

void use_once(concurrent_multipool_resource& pool, std::size_t bytes) {
  pool.deallocate(pool.allocate(bytes, 8), bytes, 8);
}

// Regression: `refiller` refills `pool` (its upstream is another
// concurrent pool, `lower`, reached through slow_upstream) while `exiting`,
// which used `pool`, exits and hands its cache back. The refiller's registry
// has 8+ entries, so its first use of `lower` tidies the registry.
TEST(concurrent_multipool_turnover,
     thread_exit_during_a_refill_from_another_pool_does_not_deadlock) {
  concurrent_multipool_options big_blocks;
  big_blocks.max_block_size = 1 << 20;  // the upper pool's segments are pooled blocks here
  concurrent_multipool_resource lower{std::pmr::new_delete_resource(), big_blocks};
  slow_upstream slow{&lower};
  concurrent_multipool_resource pool{&slow};
  std::vector<std::unique_ptr<concurrent_multipool_resource>> others;
  for (int i = 0; i < 8; ++i)
    others.push_back(
        std::make_unique<concurrent_multipool_resource>(std::pmr::new_delete_resource()));
  finishes_or_aborts(30s, "a refill racing a thread exit", [&] {
    event used;
    std::thread exiting{[&] {
      use_once(pool, 64);
      used.set();
      slow.entered.wait();  // then exit while the refiller is inside the upstream call
    }};
    std::thread refiller{[&] {
      for (auto& other : others) use_once(*other, 64);
      used.wait();
      slow.arm();
      use_once(pool, 64);  // a new cache for this thread: refills from `slow`
    }};
    refiller.join();
    exiting.join();
  });
  EXPECT_EQ(pool.idle_thread_caches(), 2u);
}

// A block on its way from one thread to another, with a pattern to check.
struct turnover_block {
  concurrent_multipool_resource* pool;
  unsigned char* p;
  std::size_t size;
  std::size_t alignment;
  unsigned char pattern;
};

// A few sizes (each pool touches few classes, so the test stays fast under
// sanitizers), every power-of-two alignment up to 64.
turnover_block take_block(concurrent_multipool_resource& pool, std::mt19937& random) {
  static constexpr std::size_t sizes[] = {1, 24, 64, 100, 256, 600};
  turnover_block b{&pool, nullptr, sizes[random() % std::size(sizes)],
                   std::size_t{1} << (random() % 7), static_cast<unsigned char>(random())};
  b.p = static_cast<unsigned char*>(pool.allocate(b.size, b.alignment));
  std::memset(b.p, b.pattern, b.size);
  return b;
}

// Frees `b`; false if its memory was overwritten while it was live.
bool give_back(const turnover_block& b) {
  bool intact = reinterpret_cast<std::uintptr_t>(b.p) % b.alignment == 0;
  for (std::size_t i = 0; i < b.size; ++i) intact = intact && b.p[i] == b.pattern;
  b.pool->deallocate(b.p, b.size, b.alignment);
  return intact;
}

// Destroyed after the thread's registry: allocates and frees once more then.
struct late_pool_user {
  concurrent_multipool_resource* pool = nullptr;
  ~late_pool_user() {
    if (pool != nullptr) use_once(*pool, 48);
  }
};

// One generation: `middle` (upstream: the long-lived `base`, whose 32 KiB
// class serves middle's segments) and `top` (upstream: `middle`, whose 4 KiB
// class serves top's segments), used by
// `workers` short-lived threads and one thread that outlives both pools.
struct generation {
  static constexpr int workers = 8;
  static constexpr int operations = 60;

  concurrent_multipool_resource& base;
  std::atomic<int>& errors;
  std::unique_ptr<concurrent_multipool_resource> middle;
  std::unique_ptr<concurrent_multipool_resource> top;
  alloclab::testing::block_exchange<turnover_block> exchange;

  generation(concurrent_multipool_resource& base_pool, std::atomic<int>& error_count)
      : base(base_pool), errors(error_count) {
    concurrent_multipool_options smallest_segments;
    smallest_segments.segment_size = 0;  // raised to 8 blocks of 4 KiB
    middle = std::make_unique<concurrent_multipool_resource>(&base, smallest_segments);
    concurrent_multipool_options small;
    small.max_block_size = 512;
    small.segment_size = 4096;
    top = std::make_unique<concurrent_multipool_resource>(middle.get(), small);
  }

  concurrent_multipool_resource& pick(std::mt19937& random) {
    const auto dice = random() % 3;
    return dice == 0 ? base : dice == 1 ? *middle : *top;
  }

  void work(unsigned seed) {
    thread_local late_pool_user late;  // constructed before this thread's registry
    late.pool = &base;
    std::mt19937 random{seed};
    std::vector<turnover_block> mine;
    for (int op = 0; op < operations; ++op) {
      const auto dice = random() % 8;
      turnover_block b{};
      if (dice < 4 || mine.empty()) {
        mine.push_back(take_block(pick(random), random));
      } else if (dice < 6) {
        exchange.put(mine.back());
        mine.pop_back();
      } else if (dice < 7) {
        if (exchange.take(b) && !give_back(b)) ++errors;
      } else {
        if (!give_back(mine.back())) ++errors;
        mine.pop_back();
      }
    }
    for (const turnover_block& b : mine)
      if (!give_back(b)) ++errors;
  }

  void run(unsigned seed) {
    event holding, pools_gone;
    std::thread holder{[&] {  // holds caches of both pools while they are destroyed
      std::mt19937 random{seed};
      for (concurrent_multipool_resource* pool : {middle.get(), top.get(), &base})
        if (!give_back(take_block(*pool, random))) ++errors;
      holding.set();
      pools_gone.wait();
    }};
    std::atomic<int> done{0};
    event all_done;
    std::vector<std::thread> threads;
    for (int t = 0; t < workers; ++t) {
      threads.emplace_back([&, t] {
        work(seed * 31u + static_cast<unsigned>(t));
        if (++done == workers) all_done.set();
      });  // then exits, maybe while the pools are being destroyed
    }
    all_done.wait();
    holding.wait();
    use_once(*top, 24);  // the main thread's registry collects dead entries
    use_once(*middle, 24);
    turnover_block b{};
    while (exchange.take(b))
      if (!give_back(b)) ++errors;
    top.reset();
    middle.reset();
    pools_gone.set();
    holder.join();
    for (std::thread& t : threads) t.join();
  }
};

TEST(concurrent_multipool_turnover, thousands_of_threads_and_pools_come_and_go) {
  checked_resource checker{std::pmr::new_delete_resource()};
  synchronized_resource<> upstream{&checker};
  std::atomic<int> errors{0};
  constexpr int generations = 200;  // 2 000 short-lived threads and 200 that outlive pools
  {
    concurrent_multipool_options pools_segments;
    pools_segments.max_block_size = 32 * 1024;  // middle's segments are pooled blocks here
    concurrent_multipool_resource base{&upstream, pools_segments};
    for (int g = 0; g < generations; ++g) generation{base, errors}.run(static_cast<unsigned>(g));
    EXPECT_EQ(errors.load(), 0);
    // Threads come and go; the caches stay as many as ever ran at once.
    EXPECT_LE(base.thread_caches(), std::size_t{generation::workers + 2});
    EXPECT_EQ(base.idle_thread_caches(), base.thread_caches() - 1);  // all but the main thread's
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

}  // namespace
