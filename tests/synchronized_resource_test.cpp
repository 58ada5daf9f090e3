// Test plan: synchronized_resource (also in conformance_test.cpp and
// container_exception_test.cpp).
//
// | member / property                    | test case                                        |
// |--------------------------------------|--------------------------------------------------|
// | allocate / deallocate forward        | forwards_size_and_alignment_to_the_upstream      |
// | one mutex: no two calls overlap      | never_lets_two_threads_into_the_upstream_at_once |
// | with_lock                            | with_lock_runs_under_the_same_mutex              |
// | non-virtual path (concrete Resource) | serves_alloclab_allocator_through_a_concrete_type |
// | upstream failure propagates          | upstream_failure_reaches_the_caller              |
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/synchronized_resource.hpp>
#include <alloclab/tracking_resource.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "test_resources.hpp"

namespace {

using namespace alloclab;

// Counts calls that overlap in time: a data race on an unsynchronised
// upstream becomes a visible number.
class overlap_detector final : public std::pmr::memory_resource {
 public:
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::atomic<long> calls{0};

 private:
  void enter() {
    if (inside.fetch_add(1) != 0) ++overlaps;
    ++calls;
    for (int i = 0; i < 50; ++i) std::atomic_signal_fence(std::memory_order_seq_cst);
    std::this_thread::yield();
  }
  void leave() { --inside; }
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    enter();
    void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
    leave();
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    enter();
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
    leave();
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }
};

template <class Resource>
void hammer(Resource& resource, int threads, int rounds) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        void* p = resource.allocate(32, 8);
        resource.deallocate(p, 32, 8);
      }
    });
  }
  for (std::thread& w : workers) w.join();
}

TEST(synchronized_resource, forwards_size_and_alignment_to_the_upstream) {
  tracking_resource tracker;
  synchronized_resource shared{&tracker};
  void* p = shared.allocate(100, 64);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(tracker.bytes().current, 100u);
  shared.deallocate(p, 100, 64);
  EXPECT_EQ(tracker.bytes().current, 0u);
  EXPECT_EQ(shared.upstream(), &tracker);
}

TEST(synchronized_resource, never_lets_two_threads_into_the_upstream_at_once) {
  overlap_detector detector;
  synchronized_resource<std::pmr::memory_resource> shared{&detector};
  hammer(shared, 4, 500);
  EXPECT_EQ(detector.calls.load(), 4 * 500 * 2);
  EXPECT_EQ(detector.overlaps.load(), 0);
}

TEST(synchronized_resource, the_detector_sees_overlaps_without_the_mutex) {
  // Proves the test above can fail: the same load straight on the detector.
  overlap_detector detector;
  std::pmr::memory_resource& direct = detector;
  for (int attempt = 0; attempt < 20 && detector.overlaps.load() == 0; ++attempt)
    hammer(direct, 4, 500);
  EXPECT_GT(detector.overlaps.load(), 0);
}

TEST(synchronized_resource, with_lock_runs_under_the_same_mutex) {
  tracking_resource tracker;
  synchronized_resource shared{&tracker};
  hammer(shared, 2, 1000);
  const std::size_t total = shared.with_lock([](tracking_resource& t) { return t.blocks().total; });
  EXPECT_EQ(total, 2000u);
  EXPECT_EQ(shared.with_lock([](tracking_resource& t) { return t.blocks().current; }), 0u);
}

// This test used to pass unchanged through polymorphic_allocator.
// Both layers now count virtual calls; the control shows the counters work.
TEST(synchronized_resource, serves_alloclab_allocator_through_a_concrete_type) {
  alignas(std::max_align_t) std::byte buffer[4096];
  alloclab::testing::counts_virtual_calls<arena_resource> arena{buffer, sizeof buffer,
                                                                std::pmr::null_memory_resource()};
  alloclab::testing::counts_virtual_calls<synchronized_resource<arena_resource>> shared{&arena};
  using alloc = allocator<int, synchronized_resource<arena_resource>>;
  std::vector<int, alloc> values{alloc{&shared}};
  values.reserve(100);
  for (int i = 0; i < 100; ++i) values.push_back(i);
  EXPECT_EQ(values[99], 99);
  EXPECT_GE(arena.used(), 400u);
  EXPECT_EQ(shared.virtual_calls, 0u);
  EXPECT_EQ(arena.virtual_calls, 0u) << "synchronized_resource calls its upstream non-virtually";
  std::pmr::vector<int> control{&shared};
  control.push_back(1);
  EXPECT_EQ(shared.virtual_calls, 1u) << "the counter sees a call through memory_resource";
  EXPECT_EQ(arena.virtual_calls, 0u);
}

TEST(synchronized_resource, upstream_failure_reaches_the_caller) {
  synchronized_resource<std::pmr::memory_resource> shared{std::pmr::null_memory_resource()};
  EXPECT_THROW((void)shared.allocate(8, 8), std::bad_alloc);
  EXPECT_THROW((void)shared.allocate(8, 8), std::bad_alloc);  // the mutex was released
}

}  // namespace

// The lock policy: any Lockable, a spin lock, std::shared_mutex.
namespace {

using namespace alloclab;

static_assert(std::is_same_v<synchronized_resource<tracking_resource>,
                             synchronized_resource<tracking_resource, std::mutex>>,
              "synchronized_resource<R> keeps meaning a std::mutex");

TEST(synchronized_resource_lock_policy, a_spin_lock_never_lets_two_threads_in) {
  overlap_detector detector;
  synchronized_resource<std::pmr::memory_resource, spin_lock> shared{&detector};
  hammer(shared, 4, 500);
  EXPECT_EQ(detector.calls.load(), 4 * 500 * 2);
  EXPECT_EQ(detector.overlaps.load(), 0);
}

TEST(synchronized_resource_lock_policy, spin_lock_try_lock_fails_while_held) {
  spin_lock lock;
  EXPECT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock());
  bool other_thread_got_it = true;
  std::thread other{[&] { other_thread_got_it = lock.try_lock(); }};
  other.join();
  EXPECT_FALSE(other_thread_got_it);
  lock.unlock();
  EXPECT_TRUE(lock.try_lock());
  lock.unlock();
}

TEST(synchronized_resource_lock_policy, a_shared_mutex_serialises_writers) {
  overlap_detector detector;
  synchronized_resource<std::pmr::memory_resource, std::shared_mutex> shared{&detector};
  hammer(shared, 4, 500);
  EXPECT_EQ(detector.overlaps.load(), 0);
}

TEST(synchronized_resource_lock_policy, shared_readers_run_side_by_side) {
  // Each reader waits inside with_shared_lock until the other is inside too:
  // that ends only if both hold the lock at once (an exclusive lock would keep
  // the second out until the 10 s escape hatch).
  tracking_resource tracker;
  synchronized_resource<tracking_resource, std::shared_mutex> shared{&tracker};
  shared.deallocate(shared.allocate(64), 64);
  std::atomic<int> inside{0};
  std::atomic<int> met{0};
  auto reader = [&] {
    shared.with_shared_lock([&](const tracking_resource& t) {
      ++inside;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (inside.load() < 2 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
      if (inside.load() == 2) ++met;
      return t.blocks().total;
    });
  };
  std::thread a{reader}, b{reader};
  a.join();
  b.join();
  EXPECT_EQ(met.load(), 2);
}

// Lockable and nothing more, counting its acquisitions.
struct counting_lock {
  static inline int locks = 0;
  std::mutex m;
  void lock() {
    m.lock();
    ++locks;
  }
  bool try_lock() {
    if (!m.try_lock()) return false;
    ++locks;
    return true;
  }
  void unlock() { m.unlock(); }
};

TEST(synchronized_resource_lock_policy, any_lockable_guards_every_call) {
  tracking_resource tracker;
  synchronized_resource<tracking_resource, counting_lock> shared{&tracker};
  shared.deallocate(shared.allocate(16), 16);
  const std::size_t total = shared.with_lock([](tracking_resource& t) { return t.blocks().total; });
  EXPECT_EQ(total, 1u);
  EXPECT_EQ(counting_lock::locks, 3);  // allocate, deallocate, with_lock
}

}  // namespace
