// alloclab/synchronized_resource.hpp: one lock around any resource, so an
// arena, a pool or a tracker can be shared between threads when it must be.
//
// `synchronized_resource<Resource, Lock>` forwards allocate and deallocate to
// its upstream while holding a `Lock` (std::mutex by default); that is its one
// concern. With a concrete `Resource` the forwarded call is non-virtual.
// `with_lock(f)` runs `f(upstream)` under the same lock, to read statistics or
// call release() while other threads may be allocating. Every call serialises
// on one lock: for a hot path shared by many threads use
// concurrent_multipool_resource.
//
// The Lock policy: any Lockable type (lock, try_lock, unlock).
//
// | Lock                | when                                                       |
// |---------------------|------------------------------------------------------------|
// | std::mutex          | the default: waiters sleep                                 |
// | alloclab::spin_lock | short critical sections (a pool pop), no more threads than cores |
// | std::shared_mutex   | many readers of statistics: `with_shared_lock(f)` runs `f(const upstream&)` beside other readers; allocate/deallocate lock exclusively |
//
// Example:
//   #include <alloclab/synchronized_resource.hpp>
//   #include <alloclab/tracking_resource.hpp>
//   #include <memory_resource>
//   #include <thread>
//   #include <vector>
//
//   int main() {
//     alloclab::tracking_resource tracker;  // not thread-safe on its own
//     alloclab::synchronized_resource shared{&tracker};
//     auto work = [&] {
//       for (int i = 0; i < 1000; ++i) std::pmr::vector<int>(100, i, &shared);
//     };
//     std::thread a{work}, b{work};
//     a.join();
//     b.join();
//     const auto total = shared.with_lock([](auto& t) { return t.blocks().total; });
//     // A spin lock instead of the mutex: the critical section is one call.
//     alloclab::tracking_resource other;
//     alloclab::synchronized_resource<alloclab::tracking_resource, alloclab::spin_lock> spun{&other};
//     auto once = [&] { spun.deallocate(spun.allocate(64), 64); };
//     std::thread c{once}, d{once};
//     c.join();
//     d.join();
//     return total == 2000 && other.blocks().total == 2 ? 0 : 1;
//   }
//
// Bounds: the upstream's, plus taking and releasing the lock.
//
// Thread-safe, given an upstream that is only used through this adaptor.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory_resource>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <utility>

#include "detail/compiler.hpp"
#include "detail/pmr_bridge.hpp"

namespace alloclab {

// A test-and-test-and-set lock: spins on a plain load, pauses the core, and
// yields the thread after 64 spins so a preempted owner can run.
class spin_lock {
 public:
  void lock() noexcept {
    unsigned spins = 0;
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) back_off(spins);
    }
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) &&
           !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  static void back_off(unsigned& spins) noexcept {
    if (++spins < 64) {
      detail::spin_pause();
      return;
    }
    spins = 0;
    std::this_thread::yield();
  }

  std::atomic<bool> locked_{false};
};

namespace detail {
template <class Lock, class = void>
struct is_shared_lockable : std::false_type {};
template <class Lock>
struct is_shared_lockable<Lock, std::void_t<decltype(std::declval<Lock&>().lock_shared())>>
    : std::true_type {};
}  // namespace detail

template <class Resource = std::pmr::memory_resource, class Lock = std::mutex>
class synchronized_resource : public detail::pmr_bridge<synchronized_resource<Resource, Lock>> {
 public:
  explicit synchronized_resource(Resource* upstream) noexcept : upstream_(upstream) {}

  synchronized_resource(const synchronized_resource&) = delete;
  synchronized_resource& operator=(const synchronized_resource&) = delete;

  // Non-virtual; hide memory_resource::allocate/deallocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::lock_guard<Lock> hold{lock_};
    return upstream_->allocate(bytes, alignment);
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::lock_guard<Lock> hold{lock_};
    upstream_->deallocate(p, bytes, alignment);
  }

  // Runs `f(*upstream)` while holding the lock and returns what it returns.
  template <class Function>
  decltype(auto) with_lock(Function&& f) {
    const std::lock_guard<Lock> hold{lock_};
    return f(*upstream_);
  }

  // Runs `f(const upstream&)` under a shared lock, beside other readers; only
  // for a Lock with lock_shared() (std::shared_mutex).
  template <class Function, class L = Lock,
            std::enable_if_t<detail::is_shared_lockable<L>::value, int> = 0>
  decltype(auto) with_shared_lock(Function&& f) const {
    const std::shared_lock<Lock> hold{lock_};
    return f(std::as_const(*upstream_));
  }

  Resource* upstream() const noexcept { return upstream_; }

 private:
  Resource* upstream_;
  mutable Lock lock_;
};

}  // namespace alloclab
