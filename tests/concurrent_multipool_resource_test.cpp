// Test plan: concurrent_multipool_resource (also in conformance_test.cpp,
// container_exception_test.cpp and the model harness, single-threaded).
// Meant to run under ThreadSanitizer too (the `tsan` preset).
//
// | member / property                         | test case                                         |
// |-------------------------------------------|---------------------------------------------------|
// | reuse, GCC bug 118681 grid, oversize forwarded or thrown: multipool_family_test.cpp      |
// | class_of, class_stats, segment_size        | class_stats_sum_every_thread                      |
// | class_stats: remote frees are not in use   | class_stats_do_not_count_remote_frees_as_in_use   |
// | zero bytes, bad alignment                  | zero_bytes_and_bad_alignment                      |
// | per-thread caches                          | each_thread_allocates_from_its_own_segments       |
// | remote frees drained by the owner          | blocks_freed_by_another_thread_return_to_their_owner |
// | remote frees drained in bounded batches    | an_allocate_drains_a_bounded_batch_of_remote_frees |
// | no growth while a class's blocks wait      | a_class_grows_only_when_none_of_its_blocks_wait_remotely |
// | thread exit returns the cache              | an_exiting_thread_returns_its_cache_for_adoption  |
// | thread_local destructors after the return  | frees_in_late_thread_local_destructors_stay_remote |
// | memory held does not grow with exited threads | exited_threads_hold_no_caches,                 |
// | failure injection (upstream, global new)   | each_upstream_failure_in_turn_leaks_nothing,      |
// |                                            | a_failing_global_new_takes_no_cache               |
// |                                            | a_late_destructor_switching_pools_takes_no_cache_for_good |
// | release() with threads alive               | release_with_threads_alive_keeps_them_usable      |
// | destruction with threads alive             | destruction_with_threads_alive_is_safe            |
// | fork() with the upstream lock held         | a_forked_child_takes_new_segments                 |
// | many threads, cross-thread frees, model    | stress_with_cross_thread_frees_matches_the_model  |
// | requests over PTRDIFF_MAX                  | requests_over_ptrdiff_max_fail                    |
// | upstream alignment checked                 | an_upstream_ignoring_the_alignment_is_refused     |
// | segment size past 2^63                     | a_segment_size_past_the_largest_power_of_two_throws |
#include <alloclab/checked_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/limit_resource.hpp>
#include <alloclab/synchronized_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include "block_exchange.hpp"
#include "patterned_block.hpp"
#include "test_resources.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace {

using namespace alloclab;
using alloclab::testing::intact;

// Runs `f` on a new thread and waits for it.
template <class Function>
void on_another_thread(Function&& f) {
  std::thread worker{std::forward<Function>(f)};
  worker.join();
}

// A thread that runs posted tasks one by one until destroyed: a thread that
// stays alive across release() or destruction of a resource.
class parked_thread {
 public:
  parked_thread() : worker_([this] { loop(); }) {}
  parked_thread(const parked_thread&) = delete;
  parked_thread& operator=(const parked_thread&) = delete;
  ~parked_thread() {
    {
      const std::lock_guard<std::mutex> lock{mutex_};
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }
  // Runs `task` on the parked thread and waits until it has finished.
  template <class Task>
  void run(Task task) {
    std::unique_lock<std::mutex> lock{mutex_};
    task_ = task;
    wake_.notify_all();
    done_.wait(lock, [&] { return !task_; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock{mutex_};
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || task_; });
      if (task_) {
        task_();
        task_ = nullptr;
        done_.notify_all();
      } else {
        return;
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::function<void()> task_;
  bool stopping_ = false;
  std::thread worker_;
};

TEST(concurrent_multipool_resource, class_stats_sum_every_thread) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  EXPECT_GE(pool.segment_size(), 8 * pool.max_block_size());
  const std::size_t index = pool.class_of(100, 8);
  ASSERT_EQ(pool.class_stats(index).block_size, 112u);
  void* here = pool.allocate(100, 8);
  void* there = nullptr;
  on_another_thread([&] { there = pool.allocate(112, 16); });
  const multipool_class_stats stats = pool.class_stats(index);
  EXPECT_EQ(stats.blocks_in_use, 2u);
  EXPECT_EQ(stats.chunks, 2u);  // one segment per thread
  EXPECT_EQ(stats.blocks_free + stats.blocks_in_use, 2 * ((pool.segment_size() - 64) / 112));
  pool.deallocate(here, 100, 8);
  pool.deallocate(there, 112, 16);  // remote: free at once, drained by the cache's next owner
  EXPECT_EQ(pool.class_stats(index).blocks_in_use, 0u);
  EXPECT_EQ(pool.class_of(4097, 8), concurrent_multipool_resource::no_class);
}

TEST(concurrent_multipool_resource, zero_bytes_and_bad_alignment) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  void* a = pool.allocate(0, 8);
  void* b = pool.allocate(0, 8);
  EXPECT_NE(a, b);
  pool.deallocate(a, 0, 8);
  pool.deallocate(b, 0, 8);
  EXPECT_EQ(pool.class_stats(0).blocks_in_use, 0u);
  EXPECT_THROW((void)pool.allocate(8, 3), std::bad_alloc);
  EXPECT_THROW((void)pool.allocate(8, 0), std::bad_alloc);
}

TEST(concurrent_multipool_resource, each_thread_allocates_from_its_own_segments) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  const std::uintptr_t mask = ~(pool.segment_size() - 1);
  parked_thread a, b;
  void* from_a = nullptr;
  void* from_b = nullptr;
  a.run([&] { from_a = pool.allocate(64, 8); });
  b.run([&] { from_b = pool.allocate(64, 8); });
  EXPECT_NE(reinterpret_cast<std::uintptr_t>(from_a) & mask,
            reinterpret_cast<std::uintptr_t>(from_b) & mask);
  EXPECT_EQ(pool.thread_caches(), 2u);
  a.run([&] { pool.deallocate(from_a, 64, 8); });
  b.run([&] { pool.deallocate(from_b, 64, 8); });
}

TEST(concurrent_multipool_resource, blocks_freed_by_another_thread_return_to_their_owner) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  parked_thread owner;
  std::vector<void*> first;
  owner.run([&] {
    for (int i = 0; i < 100; ++i) first.push_back(pool.allocate(48, 8));
  });
  for (void* p : first) pool.deallocate(p, 48, 8);  // every free is remote
  const std::size_t segments = pool.class_stats(pool.class_of(48, 8)).chunks;
  EXPECT_EQ(pool.class_stats(pool.class_of(48, 8)).blocks_in_use, 0u);  // free, not drained yet
  // Carving is exhausted only after the segment's fresh blocks are used; use
  // them all, so the owner has to drain its remote list to continue.
  std::set<void*> second;
  const std::size_t per_segment = (pool.segment_size() - 64) / 48;
  owner.run([&] {
    for (std::size_t i = 0; i < per_segment; ++i) second.insert(pool.allocate(48, 8));
  });
  for (void* p : first) EXPECT_EQ(second.count(p), 1u) << "a remotely freed block was lost";
  EXPECT_EQ(pool.class_stats(pool.class_of(48, 8)).chunks, segments);
  EXPECT_EQ(pool.class_stats(pool.class_of(48, 8)).blocks_in_use, per_segment);
  owner.run([&] {
    for (void* p : second) pool.deallocate(p, 48, 8);
  });
}

TEST(concurrent_multipool_resource, an_exiting_thread_returns_its_cache_for_adoption) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  void* kept = nullptr;
  on_another_thread([&] { kept = pool.allocate(200, 8); });
  EXPECT_EQ(pool.thread_caches(), 1u);
  EXPECT_EQ(pool.idle_thread_caches(), 1u);
  on_another_thread([&] {
    void* p = pool.allocate(200, 8);  // adopts the idle cache: same segment
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) & ~(pool.segment_size() - 1),
              reinterpret_cast<std::uintptr_t>(kept) & ~(pool.segment_size() - 1));
    pool.deallocate(p, 200, 8);
    pool.deallocate(kept, 200, 8);  // local again: this thread owns the cache now
    EXPECT_EQ(pool.class_stats(pool.class_of(200, 8)).blocks_in_use, 0u);
  });
  EXPECT_EQ(pool.thread_caches(), 1u);
  EXPECT_EQ(pool.idle_thread_caches(), 1u);
}

// Destroyed after the thread's registry (constructed before it): frees and
// allocates after the thread has returned its cache.
struct late_user {
  concurrent_multipool_resource* pool = nullptr;
  void* block = nullptr;
  ~late_user() {
    if (pool == nullptr) return;
    pool->deallocate(block, 32, 8);
    void* p = pool->allocate(32, 8);
    std::memset(p, 0x5A, 32);
    pool->deallocate(p, 32, 8);
  }
};

TEST(concurrent_multipool_resource, frees_in_late_thread_local_destructors_stay_remote) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  on_another_thread([&] {
    thread_local late_user user;  // constructed first, so destroyed after the registry
    user.pool = &pool;
    user.block = pool.allocate(32, 8);
  });
  // The cache went back to the pool before late_user ran: its frees (of the block, and of the
  // one it allocated late) must have gone to the remote list, not into a list the thread no
  // longer owned (ASan and TSan see that); either way both blocks are free.
  EXPECT_EQ(pool.class_stats(pool.class_of(32, 8)).blocks_in_use, 0u);
  // The late allocation borrowed the idle cache for that one call and gave it back.
  EXPECT_EQ(pool.idle_thread_caches(), 1u);
  EXPECT_EQ(pool.thread_caches(), 1u);
  on_another_thread([&] {
    for (int i = 0; i < 2000; ++i) pool.deallocate(pool.allocate(32, 8), 32, 8);
  });
}

TEST(concurrent_multipool_resource, release_with_threads_alive_keeps_them_usable) {
  checked_resource upstream{std::pmr::new_delete_resource()};
  concurrent_multipool_resource pool{&upstream};
  parked_thread a, b;
  a.run([&] { (void)pool.allocate(64, 8); });
  b.run([&] { (void)pool.allocate(512, 8); });
  EXPECT_EQ(upstream.blocks_in_use(), 2u);
  pool.release();  // no call in flight: a and b are parked
  EXPECT_EQ(upstream.blocks_in_use(), 0u);
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).blocks_in_use, 0u);
  for (parked_thread* t : {&a, &b}) {
    t->run([&] {
      void* p = pool.allocate(64, 8);
      std::memset(p, 0x42, 64);
      pool.deallocate(p, 64, 8);
    });
  }
  EXPECT_EQ(pool.thread_caches(), 2u);
  pool.release();
  EXPECT_EQ(upstream.total_misuses(), 0u) << upstream.last_misuse();
}

TEST(concurrent_multipool_resource, exited_threads_hold_no_caches) {
  checked_resource upstream{std::pmr::new_delete_resource()};
  concurrent_multipool_resource pool{&upstream};
  for (int i = 0; i < 1000; ++i) {
    on_another_thread([&] {
      thread_local late_user user;  // allocates after the thread returned its cache
      user.pool = &pool;
      user.block = pool.allocate(32, 8);
    });
  }
  EXPECT_EQ(pool.thread_caches(), 1u);
  EXPECT_EQ(pool.idle_thread_caches(), 1u);
  EXPECT_EQ(upstream.blocks_in_use(), 1u);  // one segment, whatever the number of threads
}

// Switches between two pools in a thread_local destructor that runs after the
// thread returned its caches.
struct late_switcher {
  concurrent_multipool_resource* pools[2] = {nullptr, nullptr};
  ~late_switcher() {
    if (pools[0] == nullptr) return;
    for (int i = 0; i < 500; ++i) {
      for (concurrent_multipool_resource* pool : pools)
        pool->deallocate(pool->allocate(40, 8), 40, 8);
    }
  }
};

TEST(concurrent_multipool_resource, a_late_destructor_switching_pools_takes_no_cache_for_good) {
  concurrent_multipool_resource first{std::pmr::new_delete_resource()};
  concurrent_multipool_resource second{std::pmr::new_delete_resource()};
  on_another_thread([&] {
    thread_local late_switcher switcher;
    switcher.pools[0] = &first;
    switcher.pools[1] = &second;
    first.deallocate(first.allocate(40, 8), 40, 8);  // the thread's registry exists
  });
  for (concurrent_multipool_resource* pool : {&first, &second}) {
    EXPECT_EQ(pool->thread_caches(), 1u);
    EXPECT_EQ(pool->idle_thread_caches(), 1u);
  }
}

// Allocates in a thread_local destructor that runs after the thread returned
// its caches; records a failure (a destructor must not throw).
struct late_allocator {
  concurrent_multipool_resource* pool = nullptr;
  bool* failed = nullptr;
  ~late_allocator() {
    if (pool == nullptr) return;
    try {
      pool->deallocate(pool->allocate(48, 8), 48, 8);
    } catch (const std::bad_alloc&) {
      *failed = true;
    }
  }
};

// Each upstream request in turn fails (adopting, refilling, oversize, and a
// late destructor's borrowed cache): nothing leaks and every cache comes back.
TEST(concurrent_multipool_resource, each_upstream_failure_in_turn_leaks_nothing) {
  for (std::size_t failing = 1;; ++failing) {
    ASSERT_LT(failing, 50u) << "a failure was injected in every run";
    checked_resource checker{std::pmr::new_delete_resource()};
    limit_resource limit{&checker, {}};
    limit.fail_after(failing, false);  // that request only
    bool failed = false;
    bool late_failed = false;
    {
      concurrent_multipool_resource pool{&limit};
      on_another_thread([&] {
        thread_local late_allocator late;  // constructed before the registry
        late.pool = &pool;
        late.failed = &late_failed;
        try {
          for (std::size_t bytes : {24, 200, 3000, 9000})
            pool.deallocate(pool.allocate(bytes, 8), bytes, 8);
        } catch (const std::bad_alloc&) {
          failed = true;
        }
      });
      EXPECT_EQ(pool.idle_thread_caches(), pool.thread_caches()) << "request " << failing;
    }
    EXPECT_EQ(checker.blocks_in_use(), 0u) << "request " << failing;
    EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
    if (!failed && !late_failed) break;
  }
}

TEST(concurrent_multipool_resource, a_failing_global_new_takes_no_cache) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  on_another_thread([&] {
    {
      const alloclab::testing::global_new_failure failing;
      EXPECT_THROW((void)pool.allocate(64, 8), std::bad_alloc);
    }
    EXPECT_EQ(pool.thread_caches(), 0u);
    pool.deallocate(pool.allocate(64, 8), 64, 8);
  });
  EXPECT_EQ(pool.thread_caches(), 1u);
  EXPECT_EQ(pool.idle_thread_caches(), 1u);
}

TEST(concurrent_multipool_resource, destruction_with_threads_alive_is_safe) {
  checked_resource upstream{std::pmr::new_delete_resource()};
  std::unique_ptr<concurrent_multipool_resource> successor;
  {
    parked_thread worker;
    for (int generation = 0; generation < 20; ++generation) {
      auto pool = std::make_unique<concurrent_multipool_resource>(&upstream);
      worker.run([&] {
        void* p = pool->allocate(96, 8);
        std::memset(p, 0x17, 96);
        pool->deallocate(p, 96, 8);
      });
      pool.reset();  // the worker still records a cache of the dead pool
      EXPECT_EQ(upstream.blocks_in_use(), 0u);
    }
    // A new pool, perhaps at a dead one's address: the worker never used it.
    successor = std::make_unique<concurrent_multipool_resource>(&upstream);
  }  // the worker exits here with 20 dead records (ASan watching): none is dereferenced
  EXPECT_EQ(successor->idle_thread_caches(), 0u) << "a dead pool's cache went to its successor";
  EXPECT_EQ(upstream.total_misuses(), 0u) << upstream.last_misuse();
}

// Several threads allocate random sizes, hand some blocks to other threads
// through a shared queue and free what they receive. A model (every live
// block's address range) is updated before each free and after each
// allocation, so an overlap or a block handed out twice is caught.
class live_model {
 public:
  bool insert(std::byte* p, std::size_t size) {
    const std::lock_guard<std::mutex> lock{mutex_};
    auto next = live_.lower_bound(p);
    if (next != live_.end() && next->first < p + size) return false;
    if (next != live_.begin() && std::prev(next)->first + std::prev(next)->second > p) return false;
    live_.emplace(p, size);
    return true;
  }
  void erase(std::byte* p) {
    const std::lock_guard<std::mutex> lock{mutex_};
    live_.erase(p);
  }
  std::size_t size() {
    const std::lock_guard<std::mutex> lock{mutex_};
    return live_.size();
  }

 private:
  std::mutex mutex_;
  std::map<std::byte*, std::size_t> live_;
};

struct handed_block {
  std::byte* p;
  std::size_t size;
  std::size_t alignment;
  unsigned char pattern;
};

TEST(concurrent_multipool_resource, stress_with_cross_thread_frees_matches_the_model) {
  checked_resource checker{std::pmr::new_delete_resource()};
  synchronized_resource<> upstream{&checker};  // oversize calls also come from many threads
  live_model model;
  alloclab::testing::block_exchange<handed_block> exchange;
  std::atomic<int> errors{0};
  constexpr int threads = 4;
  constexpr int operations = 4000;
  {
    concurrent_multipool_resource pool{&upstream, {2048}};
    auto release_block = [&](const handed_block& b) {
      if (!intact(b)) ++errors;
      model.erase(b.p);
      pool.deallocate(b.p, b.size, b.alignment);
    };
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        std::mt19937 random{static_cast<unsigned>(t) * 7919u + 1u};
        std::vector<handed_block> mine;
        for (int op = 0; op < operations; ++op) {
          const unsigned dice = random() % 8;
          handed_block b{};
          if (dice < 4 || mine.empty()) {
            b.size = random() % 2600;  // some beyond the largest class: oversize
            b.alignment = std::size_t{1} << (random() % 7);
            b.p = static_cast<std::byte*>(pool.allocate(b.size, b.alignment));
            b.pattern = static_cast<unsigned char>(random());
            if (reinterpret_cast<std::uintptr_t>(b.p) % b.alignment != 0) ++errors;
            if (!model.insert(b.p, b.size == 0 ? 1 : b.size)) ++errors;
            std::memset(b.p, b.pattern, b.size);
            mine.push_back(b);
          } else if (dice < 6) {
            exchange.put(mine.back());  // another thread frees it
            mine.pop_back();
          } else if (dice < 7) {
            if (exchange.take(b)) release_block(b);
          } else {
            const std::size_t index = random() % mine.size();
            release_block(mine[index]);
            mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(index));
          }
        }
        for (const handed_block& b : mine) release_block(b);
      });
    }
    for (std::thread& w : workers) w.join();
    handed_block b{};
    while (exchange.take(b)) release_block(b);
    EXPECT_EQ(errors.load(), 0);
    EXPECT_EQ(model.size(), 0u);
  }
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

// The same contract as multipool_resource: class_stats of no_class (an oversize request's
// class_of) or of any index past class_count() is all zeros, never a read out of bounds.
TEST(concurrent_multipool_resource, class_stats_of_an_oversize_request_is_empty) {
  alloclab::concurrent_multipool_options options;
  options.max_block_size = 256;
  alloclab::concurrent_multipool_resource pool{std::pmr::new_delete_resource(), options};
  const std::size_t oversize = pool.class_of(4096, 8);
  ASSERT_EQ(oversize, alloclab::concurrent_multipool_resource::no_class);
  void* p = pool.allocate(4096, 8);
  for (const std::size_t index : {oversize, pool.class_count(), pool.class_count() + 1}) {
    const alloclab::multipool_class_stats stats = pool.class_stats(index);
    EXPECT_EQ(stats.block_size, 0u) << index;
    EXPECT_EQ(stats.blocks_in_use, 0u) << index;
    EXPECT_EQ(stats.blocks_free, 0u) << index;
    EXPECT_EQ(stats.chunks, 0u) << index;
  }
  EXPECT_EQ(pool.class_stats(pool.class_count() - 1).block_size, 256u);
  pool.deallocate(p, 4096, 8);
}

// A segment size above the largest power of two has no power of two to round
// up to (the rounding loop ran forever).
TEST(concurrent_multipool_resource, a_segment_size_past_the_largest_power_of_two_throws) {
  concurrent_multipool_options options;
  for (const std::size_t size : {(SIZE_MAX >> 1) + 2, SIZE_MAX}) {
    options.segment_size = size;
    EXPECT_THROW(concurrent_multipool_resource(std::pmr::new_delete_resource(), options),
                 std::length_error);
  }
  options.segment_size = (SIZE_MAX >> 1) + 1;  // a power of two: kept as asked
  EXPECT_EQ(concurrent_multipool_resource(std::pmr::null_memory_resource(), options).segment_size(),
            options.segment_size);
}

// Blocks are found by masking their address down to the segment: an upstream
// that ignores the segment alignment is refused at once, not found out by a
// crash in a later deallocate.
TEST(concurrent_multipool_resource, an_upstream_ignoring_the_alignment_is_refused) {
  alloclab::testing::misaligning_resource upstream;
  {
    concurrent_multipool_resource pool{&upstream};
    EXPECT_THROW((void)pool.allocate(64, 8), std::bad_alloc);
    EXPECT_EQ(upstream.live, 0u) << "the refused segment goes back to the upstream";
    EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).chunks, 0u);
  }
  EXPECT_EQ(upstream.live, 0u);
}

TEST(concurrent_multipool_resource, requests_over_ptrdiff_max_fail) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  for (const std::size_t bytes : alloclab::testing::sizes_past_ptrdiff_max)
    EXPECT_THROW((void)pool.allocate(bytes, 64), std::bad_array_new_length) << bytes;
  EXPECT_EQ(pool.oversize_allocations(), 0u);
}

// A class takes a new segment only when none of its own blocks wait in the remote list, however
// many blocks of other classes were freed after them (a producer/consumer program's pool must not
// creep while the blocks it needs wait behind another class's).
TEST(concurrent_multipool_resource, a_class_grows_only_when_none_of_its_blocks_wait_remotely) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  const std::size_t small = pool.class_of(64, 8);
  std::vector<void*> smalls{pool.allocate(64, 8)};
  while (pool.class_stats(small).blocks_free > 0) smalls.push_back(pool.allocate(64, 8));
  std::vector<void*> larges;
  for (std::size_t i = 0; i < 4 * concurrent_multipool_resource::remote_drain_batch; ++i)
    larges.push_back(pool.allocate(128, 8));
  on_another_thread([&] {
    for (void* p : smalls) pool.deallocate(p, 64, 8);  // remote, and under the larger class's
    for (void* p : larges) pool.deallocate(p, 128, 8);
  });
  ASSERT_EQ(pool.class_stats(small).chunks, 1u);
  void* again = pool.allocate(64, 8);
  EXPECT_EQ(pool.class_stats(small).chunks, 1u) << "a new segment while freed blocks waited";
  EXPECT_NE(std::find(smalls.begin(), smalls.end(), again), smalls.end());
  pool.deallocate(again, 64, 8);
}

// One allocate drains a bounded batch of remote frees, never the whole list:
// counted through remote_frees_waiting(), which drops by one per drained block.
TEST(concurrent_multipool_resource, an_allocate_drains_a_bounded_batch_of_remote_frees) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  constexpr std::size_t freed = 5000;
  std::vector<void*> blocks;
  for (std::size_t i = 0; i < freed; ++i) blocks.push_back(pool.allocate(64, 8));
  on_another_thread([&] {
    for (void* p : blocks) pool.deallocate(p, 64, 8);  // all remote
  });
  const std::size_t chunks = pool.class_stats(pool.class_of(64, 8)).chunks;
  std::size_t waiting = pool.remote_frees_waiting();
  ASSERT_EQ(waiting, freed);
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).blocks_in_use, 0u) << "free, if not drained";
  std::vector<void*> probes;
  while (waiting > 0 && probes.size() < 2 * freed) {
    probes.push_back(pool.allocate(64, 8));  // the class's refills drain a batch each
    const std::size_t now = pool.remote_frees_waiting();
    ASSERT_LE(waiting - now, concurrent_multipool_resource::remote_drain_batch);
    waiting = now;
  }
  EXPECT_EQ(waiting, 0u) << "later refills drain the rest";
  EXPECT_EQ(pool.class_stats(pool.class_of(64, 8)).chunks, chunks) << "reused, never grown";
  for (void* p : probes) pool.deallocate(p, 64, 8);
}

// An upstream whose next allocate waits, inside the pool's upstream lock,
// until release() is called.
class holding_upstream final : public std::pmr::memory_resource {
 public:
  void hold_next() { hold_.store(true); }
  void wait_until_held() {
    std::unique_lock<std::mutex> lock{mutex_};
    changed_.wait(lock, [&] { return held_; });
  }
  void release() {
    const std::lock_guard<std::mutex> lock{mutex_};
    released_ = true;
    changed_.notify_all();
  }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (hold_.exchange(false)) {
      std::unique_lock<std::mutex> lock{mutex_};
      held_ = true;
      changed_.notify_all();
      changed_.wait(lock, [&] { return released_; });
    }
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::atomic<bool> hold_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  bool held_ = false;
  bool released_ = false;
};

// fork() while another thread is inside the upstream call (holding the upstream
// lock): the child's first new segment must not wait for a thread it does not have.
TEST(concurrent_multipool_resource, a_forked_child_takes_new_segments) {
  holding_upstream upstream;
  concurrent_multipool_resource pool{&upstream};
  pool.deallocate(pool.allocate(64, 8), 64, 8);  // this thread has a cache
  upstream.hold_next();
  std::thread inside{[&] { pool.deallocate(pool.allocate(64, 8), 64, 8); }};
  upstream.wait_until_held();
  const pid_t child = ::fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    std::vector<void*> blocks;
    for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate(2048, 8));  // new segments
    for (void* p : blocks) pool.deallocate(p, 2048, 8);
    ::_exit(pool.class_stats(pool.class_of(2048, 8)).chunks > 0 ? 0 : 3);
  }
  int status = 0;
  pid_t waited = 0;
  for (int i = 0; i < 2000 && waited == 0; ++i) {  // a hang is the failure; 20 s bounds it
    waited = ::waitpid(child, &status, WNOHANG);
    if (waited == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waited == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  upstream.release();
  inside.join();
  ASSERT_NE(waited, 0) << "the child hung on the upstream lock";
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Blocks freed by other threads onto an exited thread's (idle) cache are no
// longer in use, though no owner drains them until the cache is adopted.
TEST(concurrent_multipool_resource, class_stats_do_not_count_remote_frees_as_in_use) {
  concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
  std::vector<void*> blocks;
  on_another_thread([&] {
    for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate(48, 8));
  });
  ASSERT_EQ(pool.idle_thread_caches(), 1u);
  for (void* p : blocks) pool.deallocate(p, 48, 8);  // remote frees, parked on the idle cache
  const multipool_class_stats stats = pool.class_stats(pool.class_of(48, 8));
  EXPECT_EQ(stats.blocks_in_use, 0u);
  EXPECT_GE(stats.blocks_free, 100u);
  on_another_thread([&] { pool.deallocate(pool.allocate(48, 8), 48, 8); });  // adopts, drains
  EXPECT_EQ(pool.class_stats(pool.class_of(48, 8)).blocks_in_use, 0u);
}

}  // namespace
