// alloclab/detail/thread_registry.hpp: which per-thread cache a thread uses
// for each live resource, and what happens to it when the thread exits.
// Private: not part of the public interface.
//
// Nothing here is process-wide. A program may hold several copies of this
// header's thread_locals (each shared library built with hidden visibility
// has its own, and so does the executable); each copy is a complete, separate
// registry, and a resource works with any number of them:
//
// | piece          | owned by                         | holds                              |
// |----------------|----------------------------------|------------------------------------|
// | lender_link    | its resource and every registry  | the resource (null once destroyed) |
// |                | entry naming it (reference count)| and the mutex thread exit takes    |
// | thread_registry| one thread (one per copy)        | (link, cache) for each resource    |
// | hot slots      | one thread (one array per copy)  | the last (link, cache) per slot    |
//
// A thread exit hands each cache back through its link, under the link's
// mutex; the resource's destructor clears the link under the same mutex. A
// link outlives both, so a hot slot or registry entry never names a freed or
// reused link. Lock order: a link's mutex, then the resource's cache mutex.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
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

// The part of a resource that threads' registries may still name after the
// resource is gone. Created by the resource; freed by the last reference.
class lender_link {
 public:
  explicit lender_link(cache_lender* lender) noexcept : lender_(lender) {}
  lender_link(const lender_link&) = delete;
  lender_link& operator=(const lender_link&) = delete;

  bool alive() const noexcept { return lender_.load(std::memory_order_acquire) != nullptr; }
  void acquire() noexcept { references_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Gives `cache` back to the resource if it still exists (thread exit).
  void return_cache(void* cache) noexcept {
    const std::lock_guard<std::mutex> lock{mutex_};
    if (cache_lender* lender = lender_.load(std::memory_order_relaxed)) lender->return_cache(cache);
  }
  // fork(): held across it (thread exits wait), so the child's copy is free.
  void lock_for_fork() noexcept { mutex_.lock(); }
  void unlock_after_fork() noexcept { mutex_.unlock(); }
  // The resource's destructor: no cache is returned after this returns.
  void lender_destroyed() noexcept {
    {
      const std::lock_guard<std::mutex> lock{mutex_};
      lender_.store(nullptr, std::memory_order_release);
    }
    release();
  }

 private:
  ~lender_link() = default;
  std::mutex mutex_;
  std::atomic<cache_lender*> lender_;
  std::atomic<std::size_t> references_{1};  // the resource's
};

// The last (link, cache) a thread used in one slot: trivially destructible.
struct hot_cache_slot {
  const lender_link* link;
  void* cache;
};
inline constexpr std::size_t hot_slot_count = 4;  // a power of two
// One more slot, at a fixed address: a copy of the slot used last, checked
// first (the one-resource case costs a single thread-local load).
inline constexpr std::size_t recent_slot = hot_slot_count;

// The thread_locals below use the initial-exec TLS model: each access is one
// load from the thread pointer even in -fPIC code (no __tls_get_addr call). A
// library dlopen()ed late takes them (~100 bytes) from glibc's static TLS reserve.
#if defined(__GNUC__) && defined(__ELF__)
#define ALLOCLAB_INITIAL_EXEC_TLS __attribute__((tls_model("initial-exec")))
#else
#define ALLOCLAB_INITIAL_EXEC_TLS
#endif

// This thread's hot slots, and the recent slot after them.
inline hot_cache_slot* hot_slots() noexcept {
  static thread_local hot_cache_slot slots[hot_slot_count + 1] ALLOCLAB_INITIAL_EXEC_TLS;
  return slots;
}
inline void clear_hot_slots() noexcept {
  std::fill_n(hot_slots(), hot_slot_count + 1, hot_cache_slot{nullptr, nullptr});
}

// Spreads resources over the hot slots: any hot_slot_count resources made one
// after another use different slots. Only a hint: any slot works for any resource.
inline std::size_t next_hot_slot_index() noexcept {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed) % hot_slot_count;
}

// True once this thread's registry has been destroyed (thread exit): later
// calls from thread_local destructors must not use it or the caches it returned.
inline bool& thread_exiting() noexcept {
  static thread_local bool exiting ALLOCLAB_INITIAL_EXEC_TLS = false;
  return exiting;
}

// Every cache this thread holds, returned when the thread exits.
class thread_registry {
 public:
  static thread_registry& instance() {
    static thread_local thread_registry registry ALLOCLAB_INITIAL_EXEC_TLS;
    return registry;
  }
  thread_registry(const thread_registry&) = delete;
  thread_registry& operator=(const thread_registry&) = delete;
  ~thread_registry() {
    thread_exiting() = true;
    clear_hot_slots();
    for (const auto& [link, cache] : entries_) {
      link->return_cache(cache);
      link->release();
    }
  }

  void* find(const lender_link* link) const noexcept {
    for (const auto& [entry_link, cache] : entries_) {
      if (entry_link == link) return cache;
    }
    return nullptr;
  }
  // Makes room for one add(); may throw, add() then cannot.
  void prepare_add() {
    if (entries_.size() >= 8) drop_dead();
    entries_.reserve(entries_.size() + 1);
  }
  void add(lender_link* link, void* cache) noexcept {
    link->acquire();
    entries_.emplace_back(link, cache);
  }

 private:
  thread_registry() = default;

  // Forgets the caches of destroyed resources (and the hot slots naming them).
  void drop_dead() noexcept {
    const auto dead = std::partition(entries_.begin(), entries_.end(),
                                     [](const auto& e) { return e.first->alive(); });
    if (dead == entries_.end()) return;
    clear_hot_slots();
    std::for_each(dead, entries_.end(), [](const auto& e) { e.first->release(); });
    entries_.erase(dead, entries_.end());
  }

  std::vector<std::pair<lender_link*, void*>> entries_;
};

}  // namespace alloclab::detail

#undef ALLOCLAB_INITIAL_EXEC_TLS
