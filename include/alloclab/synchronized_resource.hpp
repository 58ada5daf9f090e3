// alloclab/synchronized_resource.hpp: one mutex around any resource, so an
// arena, a pool or a tracker can be shared between threads when it must be.
//
// `synchronized_resource<Resource>` forwards allocate and deallocate to its
// upstream while holding a std::mutex; that is its one concern. With a
// concrete `Resource` the forwarded call is non-virtual. `with_lock(f)` runs
// `f(upstream)` under the same mutex, to read statistics or call release()
// while other threads may be allocating. Every call serialises on one lock:
// for a hot path shared by many threads use concurrent_multipool_resource.
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
//     return total == 2000 ? 0 : 1;
//   }
//
// Thread-safe, given an upstream that is only used through this adaptor.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <mutex>

#include "detail/pmr_bridge.hpp"

namespace alloclab {

template <class Resource = std::pmr::memory_resource>
class synchronized_resource : public detail::pmr_bridge<synchronized_resource<Resource>> {
 public:
  explicit synchronized_resource(Resource* upstream) noexcept : upstream_(upstream) {}

  synchronized_resource(const synchronized_resource&) = delete;
  synchronized_resource& operator=(const synchronized_resource&) = delete;

  // Non-virtual; hide memory_resource::allocate/deallocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::lock_guard<std::mutex> lock{mutex_};
    return upstream_->allocate(bytes, alignment);
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::lock_guard<std::mutex> lock{mutex_};
    upstream_->deallocate(p, bytes, alignment);
  }

  // Runs `f(*upstream)` while holding the mutex and returns what it returns.
  template <class Function>
  decltype(auto) with_lock(Function&& f) {
    const std::lock_guard<std::mutex> lock{mutex_};
    return f(*upstream_);
  }

  Resource* upstream() const noexcept { return upstream_; }

 private:
  Resource* upstream_;
  std::mutex mutex_;
};

}  // namespace alloclab
