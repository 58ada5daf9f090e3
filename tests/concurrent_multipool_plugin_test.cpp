// Test plan: concurrent_multipool_resource across shared libraries (a regression
// test). Two plugins built with -fvisibility=hidden (plugin/pool_plugin.cpp)
// each hold their own copy of every static in the header, and the executable a
// third: a pool made, used and destroyed through different copies must behave
// as if there were one.
//
// | property                                         | test case                                   |
// |--------------------------------------------------|---------------------------------------------|
// | made in A, used on a thread via A, deleted in B  | made_in_a_used_by_a_thread_deleted_in_b     |
// | pools made in A and in B stay apart on a thread  | pools_made_in_two_libraries_never_share_a_cache |
// | one thread, one pool, three copies of the code   | one_thread_uses_a_pool_through_every_copy   |
#include "plugin/pool_plugin.hpp"

#include <alloclab/checked_resource.hpp>
#include <alloclab/concurrent_multipool_resource.hpp>
#include <alloclab/synchronized_resource.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>

namespace {

using alloclab::concurrent_multipool_resource;

// A thread that runs `first`, then waits until allowed to finish (and exit).
class held_thread {
 public:
  template <class Function>
  explicit held_thread(Function first)
      : worker_([this, first] {
          first();
          {
            std::unique_lock<std::mutex> lock{mutex_};
            ran_ = true;
            changed_.notify_all();
            changed_.wait(lock, [&] { return released_; });
          }
        }) {
    std::unique_lock<std::mutex> lock{mutex_};
    changed_.wait(lock, [&] { return ran_; });
  }
  held_thread(const held_thread&) = delete;
  held_thread& operator=(const held_thread&) = delete;
  ~held_thread() { exit(); }
  // Lets the thread exit and waits for it.
  void exit() {
    if (!worker_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock{mutex_};
      released_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool ran_ = false;
  bool released_ = false;
  std::thread worker_;
};

std::uintptr_t segment_of(const concurrent_multipool_resource& pool, const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) & ~(pool.segment_size() - 1);
}

TEST(concurrent_multipool_plugins, made_in_a_used_by_a_thread_deleted_in_b) {
  alloclab::checked_resource checker{std::pmr::new_delete_resource()};
  alloclab::synchronized_resource<> upstream{&checker};
  concurrent_multipool_resource* pool = plugin_a_make(&upstream);
  held_thread user{[&] {
    void* p = plugin_a_allocate(pool, 64);  // this thread's registry in A records the pool
    std::memset(p, 0x3C, 64);
    plugin_a_deallocate(pool, p, 64);
  }};
  plugin_b_destroy(pool);
  user.exit();  // A's copy of the thread-exit code must know the pool is gone
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

TEST(concurrent_multipool_plugins, pools_made_in_two_libraries_never_share_a_cache) {
  concurrent_multipool_resource* made_in_a = plugin_a_make(std::pmr::new_delete_resource());
  concurrent_multipool_resource* made_in_b = plugin_b_make(std::pmr::new_delete_resource());
  {
    held_thread user{[&] {
      void* from_a = plugin_a_allocate(made_in_a, 64);
      void* from_b = plugin_a_allocate(made_in_b, 64);  // both through A's code
      EXPECT_NE(segment_of(*made_in_a, from_a), segment_of(*made_in_b, from_b));
      const std::size_t index = made_in_b->class_of(64, 8);
      EXPECT_EQ(made_in_a->class_stats(index).blocks_in_use, 1u);
      EXPECT_EQ(made_in_b->class_stats(index).blocks_in_use, 1u);
      plugin_b_deallocate(made_in_a, from_a, 64);
      plugin_b_deallocate(made_in_b, from_b, 64);
    }};
  }
  plugin_b_destroy(made_in_a);
  plugin_a_destroy(made_in_b);
}

TEST(concurrent_multipool_plugins, one_thread_uses_a_pool_through_every_copy) {
  alloclab::checked_resource checker{std::pmr::new_delete_resource()};
  alloclab::synchronized_resource<> upstream{&checker};
  concurrent_multipool_resource* pool = plugin_b_make(&upstream);
  {
    held_thread user{[&] {
      void* a = plugin_a_allocate(pool, 96);
      void* b = plugin_b_allocate(pool, 96);
      void* c = pool->allocate(96, 8);  // the executable's copy
      std::memset(a, 1, 96);
      std::memset(b, 2, 96);
      std::memset(c, 3, 96);
      plugin_b_deallocate(pool, a, 96);
      pool->deallocate(b, 96, 8);
      plugin_a_deallocate(pool, c, 96);
    }};
  }
  EXPECT_EQ(pool->idle_thread_caches(), pool->thread_caches()) << "a cache was not returned";
  {  // and on the main thread
    void* p = plugin_a_allocate(pool, 96);
    plugin_a_deallocate(pool, p, 96);
  }
  plugin_a_destroy(pool);
  EXPECT_EQ(checker.blocks_in_use(), 0u);
  EXPECT_EQ(checker.total_misuses(), 0u) << checker.last_misuse();
}

}  // namespace
