// alloclab/detail/thread_registry.hpp: which per-thread cache a thread uses
// for each live resource, and what happens to it when the thread exits.
// Private: not part of the public interface.
//
// Resources get ids that are never reused. A thread's `thread_registry` maps
// ids to its caches; on thread exit it hands each cache back to its resource
// if that resource is still alive (the process-wide `resource_directory`
// knows which are). Lock order: directory mutex, then a resource's mutex.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace alloclab::detail {

// A resource that lends per-thread caches and takes them back at thread exit.
class cache_lender {
 public:
  virtual void return_cache(void* cache) noexcept = 0;

 protected:
  ~cache_lender() = default;
};

class resource_directory {
 public:
  static resource_directory& instance() {
    static auto* directory =
        new resource_directory;  // never destroyed: thread exits may outlive statics
    return *directory;
  }

  std::uint64_t add(cache_lender* lender) {
    const std::lock_guard<std::mutex> lock{mutex_};
    const std::uint64_t id = next_id_++;
    live_.emplace(id, lender);
    return id;
  }
  void remove(std::uint64_t id) noexcept {
    const std::lock_guard<std::mutex> lock{mutex_};
    live_.erase(id);
  }
  // Gives `cache` back to resource `id` if it still exists.
  void return_cache(std::uint64_t id, void* cache) noexcept {
    const std::lock_guard<std::mutex> lock{mutex_};
    const auto found = live_.find(id);
    if (found != live_.end()) found->second->return_cache(cache);
  }
  template <class Entries>
  void drop_dead(Entries& entries) {
    const std::lock_guard<std::mutex> lock{mutex_};
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const auto& e) { return live_.count(e.first) == 0; }),
                  entries.end());
  }

 private:
  std::mutex mutex_;
  std::uint64_t next_id_ = 1;  // 0 means "no resource" in a thread's hot slot
  std::unordered_map<std::uint64_t, cache_lender*> live_;
};

// The last (resource id, cache) a thread used: trivially destructible, so
// reading it costs one thread-local load.
struct hot_cache_slot {
  std::uint64_t id;
  void* cache;
};

inline hot_cache_slot& hot_slot() noexcept {
  static thread_local hot_cache_slot slot{0, nullptr};
  return slot;
}

// True once this thread's registry has been destroyed (thread exit): later
// calls from thread_local destructors must not use it or the caches it returned.
inline bool& thread_exiting() noexcept {
  static thread_local bool exiting = false;
  return exiting;
}

// Every cache this thread holds, returned when the thread exits.
class thread_registry {
 public:
  static thread_registry& instance() {
    static thread_local thread_registry registry;
    return registry;
  }
  thread_registry(const thread_registry&) = delete;
  thread_registry& operator=(const thread_registry&) = delete;
  ~thread_registry() {
    thread_exiting() = true;
    hot_slot() = {0, nullptr};
    for (const auto& [id, cache] : entries_) resource_directory::instance().return_cache(id, cache);
  }

  void* find(std::uint64_t id) const noexcept {
    for (const auto& [entry_id, cache] : entries_) {
      if (entry_id == id) return cache;
    }
    return nullptr;
  }
  // Makes room for one add(); may throw, add() then cannot.
  void prepare_add() {
    if (entries_.size() >= 8) resource_directory::instance().drop_dead(entries_);
    entries_.reserve(entries_.size() + 1);
  }
  void add(std::uint64_t id, void* cache) noexcept { entries_.emplace_back(id, cache); }

 private:
  thread_registry() = default;
  std::vector<std::pair<std::uint64_t, void*>> entries_;
};

}  // namespace alloclab::detail
