// alloclab/concurrent_multipool_resource.hpp: multipool_resource's size
// classes, safe for many threads, with no lock on the fast path.
//
// Each thread gets its own cache of size classes (the same grid, waste bound
// and alignment rule as multipool_resource), so allocate and a deallocate by
// the allocating thread touch only that thread's memory. Blocks live in
// segments aligned to their size; a segment's header names its owning cache.
// A block freed by another thread is pushed, lock-free, onto the owner's
// remote-free list of its class; when that class runs dry, the owner takes the
// list with one exchange and moves remote_drain_batch (64) of its blocks back
// per refill. A class takes a new segment only when none of its own blocks wait
// there. A thread that exits hands its cache (with its blocks, and
// any remote frees still arriving) back to the resource; the next new thread
// adopts it. Frees from thread_local destructors that run after that are
// remote frees; an allocation from one borrows an idle cache for that call
// only, so the memory held never grows with the number of exited threads.
//
// Nothing is process-wide: the thread-exit bookkeeping (detail/thread_registry.hpp)
// works with any number of copies of this header's statics, so a resource may be
// made, used and destroyed by different shared libraries built with hidden visibility.
//
// Locks, in the only order they nest:
//   1. the link mutex (detail::lender_link): thread exit and the destructor;
//   2. the cache mutex: the list of caches and of idle ones; nothing is called
//      while it is held.
//   The upstream mutex is taken with no other lock of this resource held, around
//   each upstream call (new segments, oversize requests, release()) and nothing
//   else: the upstream may be another concurrent pool, and may take its own locks.
//
// Each thread keeps its cache for the last resource it used in one of 4 hot
// slots (and a copy of the last one used, checked first); resources take slots
// in turn as they are created (per copy of this header's code). Up to 4
// resources made one after another and used alternately on one thread all stay
// on the fast path (a switch costs one more compare and a 16-byte copy);
// resources sharing a slot work alike, but each switch between them costs a
// lookup in the thread's registry. Slots use the initial-exec TLS model: no
// __tls_get_addr call in -fPIC code.
//
// Lifetime rules:
//   * release() and the destructor must not run concurrently with any other
//     call on the resource. Threads that used it may stay alive: release()
//     keeps their caches (empty) and they may allocate again afterwards; after
//     destruction a thread's record names only the resource's link, which
//     outlives it, and its exit (even one running during the destruction) is
//     safe. Pooled blocks are invalid after either.
//   * fork(): the child's copy of the resource works. Its locks are free in the
//     child (held by the forking thread across fork(), or reset: the upstream
//     lock, which a thread inside an upstream call held, is made anew). That
//     call is abandoned in the child, so the upstream must itself be safe to
//     use after fork() (new_delete and glibc malloc are); the caches of the
//     parent's other threads stay unused until the resource is destroyed.
//   * class_stats() may run concurrently; a block freed by another thread is
//     free (blocks_free) from the moment it is pushed, drained or not, idle
//     cache or not (a free racing with the call may be seen either way).
//
// Example:
//   #include <alloclab/concurrent_multipool_resource.hpp>
//   #include <memory_resource>
//   #include <thread>
//   #include <vector>
//
//   int main() {
//     alloclab::concurrent_multipool_resource pool{std::pmr::new_delete_resource()};
//     std::pmr::vector<std::pmr::vector<int>> batches{&pool};
//     std::thread producer{[&] {
//       for (int i = 0; i < 100; ++i) batches.emplace_back(std::size_t(10 + i), i);
//     }};
//     producer.join();  // the producer's cache returns to the pool here
//     std::thread consumer{[&] { batches.clear(); }};  // frees blocks it did not allocate
//     consumer.join();
//     void* p = pool.allocate(64, 8);  // a third thread (main) adopts the returned cache
//     pool.deallocate(p, 64, 8);
//     return pool.oversize_allocations() == 0 ? 0 : 1;
//   }
//
// Bounds per call: allocate and deallocate are O(1) on the fast path; a refill
// moves at most remote_drain_batch of its class's remote frees and carves at most 32 blocks
// (or 4 KiB), plus one upstream call for a new segment; a remote deallocate is
// one compare-and-swap loop. A thread's first call on a resource takes a lock
// and may allocate its cache.
//
// Thread-safe, except release() and destruction (see above).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

#include "detail/align.hpp"
#include "detail/fork_handlers.hpp"
#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"
#include "detail/size_classes.hpp"
#include "detail/thread_registry.hpp"
#include "multipool_resource.hpp"
#include "failure.hpp"

namespace alloclab {

struct concurrent_multipool_options {
  std::size_t max_block_size = 4096;  // rounded up to a class; at most 1 MiB
  oversize_policy oversize = oversize_policy::forward_to_upstream;
  // Bytes per segment (one class, one owner), a power of two; raised to hold
  // at least 8 blocks of the largest class.
  std::size_t segment_size = 64 * 1024;
};

class concurrent_multipool_resource final
    : public detail::pmr_bridge<concurrent_multipool_resource>,
      private detail::cache_lender,
      private detail::fork_participant {
 public:
  static constexpr std::size_t no_class = multipool_resource::no_class;
  // Blocks freed by other threads that one refill moves back (the rest wait for later refills).
  static constexpr std::size_t remote_drain_batch = 64;

  explicit concurrent_multipool_resource(
      std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
      concurrent_multipool_options options = {})
      : upstream_(upstream),
        options_(options),
        max_block_size_(detail::normalized_max_block_size(options.max_block_size)),
        class_count_(detail::class_index_from_minus_one(max_block_size_ - 1) + 1),
        segment_size_(normalized_segment_size(options.segment_size, max_block_size_)),
        link_(new detail::lender_link(this)),
        hot_slot_(detail::next_hot_slot_index()) {
    join_fork_list();
  }

  concurrent_multipool_resource(const concurrent_multipool_resource&) = delete;
  concurrent_multipool_resource& operator=(const concurrent_multipool_resource&) = delete;
  ~concurrent_multipool_resource() override {
    leave_fork_list();
    link_->lender_destroyed();  // no thread returns a cache after this
    for (thread_cache* cache : caches_) {
      release_segments(*cache);
      delete cache;
    }
  }

  // Non-virtual fast path; hides memory_resource::allocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < max_block_size_ && detail::is_power_of_two(alignment))
      return allocate_from(detail::class_index_from_minus_one(rounded_minus_one));
    return allocate_outside_classes(bytes, alignment);
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < max_block_size_ && detail::is_power_of_two(alignment))
      return deallocate_pooled(p);
    deallocate_outside_classes(p, bytes, alignment);
  }

  // Returns every segment to the upstream. Must not run concurrently with any
  // other call; threads keep their (now empty) caches. Pooled blocks handed
  // out before are invalid afterwards; oversize blocks are not affected.
  void release() noexcept {
    const std::lock_guard<std::mutex> lock{upstream_mutex_};  // thread exits leave caches_ be
    for (thread_cache* cache : caches_) release_segments(*cache);
  }

  // Makes `blocks` blocks of the class serving (bytes, alignment) free in the
  // calling thread's cache, so that as many such allocations on this thread
  // take nothing from the upstream (blocks it frees are its own again; blocks
  // other threads free to it count as in use until drained). Call it at
  // start-up on each thread that allocates, once per class it uses. Takes
  // ceil(missing / blocks per segment) segments; an oversize request has no
  // class (std::length_error). After a failure the cache holds what it held.
  // O(free blocks + blocks).
  void reserve(std::size_t bytes, std::size_t alignment, std::size_t blocks) {
    const std::size_t index = class_of(bytes, alignment);
    if (index == no_class)
      fail<std::length_error>("alloclab::concurrent_multipool_resource: no class to reserve",
                              "alloclab::concurrent_multipool_resource: no class to reserve");
    thread_cache& cache = adopt_cache();
    size_class& c = cache.classes[index];
    while (c.capacity.load(std::memory_order_relaxed) - c.in_use.load(std::memory_order_relaxed) <
           blocks) {
      free_uncarved_blocks(c);
      add_segment(cache, c);
    }
  }

  // The class serving (bytes, alignment), or no_class for an oversize request.
  std::size_t class_of(std::size_t bytes, std::size_t alignment) const noexcept {
    return detail::pooled_class_of(bytes, alignment, max_block_size_);
  }
  std::size_t class_count() const noexcept { return class_count_; }
  // Summed over every thread's cache; chunks are segments. All zeros for an index past
  // class_count(), no_class included (as multipool_resource).
  multipool_class_stats class_stats(std::size_t index) const {
    if (index >= class_count_) return {};
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    multipool_class_stats stats{detail::class_size(index), 0, 0, 0};
    std::size_t capacity = 0;
    std::size_t remote_freed = 0;
    for (const thread_cache* cache : caches_) {
      const size_class& c = cache->classes[index];
      stats.blocks_in_use += c.in_use.load(std::memory_order_relaxed);
      remote_freed += cache->remote_freed[index].load(std::memory_order_relaxed);
      capacity += c.capacity.load(std::memory_order_relaxed);
      stats.chunks += c.segments.load(std::memory_order_relaxed);
    }
    stats.blocks_in_use -= std::min(remote_freed, stats.blocks_in_use);
    stats.blocks_free = capacity > stats.blocks_in_use ? capacity - stats.blocks_in_use : 0;
    return stats;
  }
  // Blocks freed by other threads that their caches' owners have not drained yet
  // (free already; drained remote_drain_batch per refill).
  std::size_t remote_frees_waiting() const {
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    std::size_t waiting = 0;
    for (const thread_cache* cache : caches_) {
      for (const std::atomic<std::size_t>& freed : cache->remote_freed)
        waiting += freed.load(std::memory_order_relaxed);
    }
    return waiting;
  }
  // Caches created so far; a thread that exits returns its cache for reuse.
  std::size_t thread_caches() const {
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    return caches_.size();
  }
  std::size_t idle_thread_caches() const {
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    return idle_caches_.size();
  }

  std::size_t max_block_size() const noexcept { return max_block_size_; }
  std::size_t segment_size() const noexcept { return segment_size_; }
  std::size_t oversize_allocations() const noexcept {
    return oversize_allocations_.load(std::memory_order_relaxed);
  }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  struct free_node {
    free_node* next;
  };
  // Written by the owning thread only; the counters are atomics so that
  // class_stats() may read them, but they are never contended.
  struct alignas(64) size_class {
    free_node* free = nullptr;
    free_node* remote_taken = nullptr;  // taken from the remote list, not yet drained
    std::byte* cursor = nullptr;
    std::byte* end = nullptr;
    std::size_t block_size = 0;
    std::atomic<std::size_t> in_use{0};
    std::atomic<std::size_t> capacity{0};
    std::atomic<std::size_t> segments{0};
  };
  struct thread_cache;
  struct segment_header {
    thread_cache* owner;
    std::size_t class_index;
    segment_header* next;  // the owner's segments
  };
  struct thread_cache {
    std::array<size_class, detail::max_class_count> classes;
    // Per class: blocks freed by other threads, pushed lock-free, taken by the owner.
    alignas(64) std::array<std::atomic<free_node*>, detail::max_class_count> remote_frees{};
    // Per class: blocks freed by other threads and not yet drained (counted before the push).
    alignas(64) std::array<std::atomic<std::size_t>, detail::max_class_count> remote_freed{};
    segment_header* segments = nullptr;
  };

  // The power of two at or above `requested`; std::length_error when there is none.
  static std::size_t normalized_segment_size(std::size_t requested, std::size_t max_block) {
    constexpr std::size_t largest = std::size_t{1} << (sizeof(std::size_t) * 8 - 1);
    if (requested > largest)
      fail<std::length_error>("alloclab::concurrent_multipool_resource: segment_size too large",
                              "alloclab::concurrent_multipool_resource: segment_size too large");
    std::size_t size = 4096;
    while (size < requested || size < 8 * max_block) size *= 2;
    return size;
  }

  // fork(): the link and cache mutexes are held across it (their sections are
  // short and call nothing); the upstream mutex is not (a fork would wait for
  // the upstream call) and is reset in the child, where its holder does not exist.
  void before_fork() noexcept override {
    link_->lock_for_fork();
    cache_mutex_.lock();
  }
  void after_fork_in_parent() noexcept override {
    cache_mutex_.unlock();
    link_->unlock_after_fork();
  }
  void after_fork_in_child() noexcept override {
    after_fork_in_parent();
    ::new (&upstream_mutex_) std::mutex;
  }

  // Single-writer counter update: a plain add, visible to class_stats().
  static void count(std::atomic<std::size_t>& counter, std::ptrdiff_t delta) noexcept {
    counter.store(counter.load(std::memory_order_relaxed) + static_cast<std::size_t>(delta),
                  std::memory_order_relaxed);
  }

  segment_header& segment_of(void* p) const noexcept {
    return *reinterpret_cast<segment_header*>(detail::address_of(p) & ~(segment_size_ - 1));
  }

  // The hot path: no call unless the class is empty or the thread is new here.
  void* allocate_from(std::size_t index) {
    const detail::hot_cache_slot& recent = detail::hot_slots()[detail::recent_slot];
    if (recent.link == link_) return allocate_in(*static_cast<thread_cache*>(recent.cache), index);
    return allocate_from_own_slot(index);
  }

  // Another resource was used last on this thread: this one's slot, if it still holds it.
  void* allocate_from_own_slot(std::size_t index) {
    detail::hot_cache_slot* slots = detail::hot_slots();
    const detail::hot_cache_slot own = slots[hot_slot_];
    if (own.link != link_) return allocate_after_lookup(index);
    slots[detail::recent_slot] = own;
    return allocate_in(*static_cast<thread_cache*>(own.cache), index);
  }

  void* allocate_in(thread_cache& cache, std::size_t index) {
    size_class& c = cache.classes[index];
    if (c.free != nullptr) return pop(c);
    return refill_and_allocate(cache, c);
  }

  void deallocate_pooled(void* p) {
    const segment_header& segment = segment_of(p);
    const detail::hot_cache_slot* slots = detail::hot_slots();
    for (const std::size_t slot : {detail::recent_slot, hot_slot_}) {
      if (slots[slot].link == link_ && segment.owner == slots[slot].cache)
        return push(segment.owner->classes[segment.class_index], p);
    }
    deallocate_slow(p, segment);
  }

  void make_hot(thread_cache* cache) noexcept {
    const detail::hot_cache_slot hot{link_, cache};  // not read back: no store-forwarding stall
    detail::hot_slots()[hot_slot_] = hot;
    detail::hot_slots()[detail::recent_slot] = hot;
  }

  static void* pop(size_class& c) noexcept {
    free_node* node = c.free;
    c.free = node->next;
    count(c.in_use, 1);
    return node;
  }
  static void push(size_class& c, void* p) noexcept {
    c.free = ::new (p) free_node{c.free};
    count(c.in_use, -1);
  }

  [[gnu::noinline]] void* allocate_after_lookup(std::size_t index) {
    if (detail::thread_exiting()) return allocate_borrowed(index);
    return allocate_in(adopt_cache(), index);
  }

  // This thread's cache: the one its registry records, or an idle one, or a new one.
  thread_cache& adopt_cache() {
    detail::thread_registry& registry = detail::thread_registry::instance();
    auto* cache = static_cast<thread_cache*>(registry.find(link_));
    if (cache == nullptr) {
      registry.prepare_add();  // may throw: before a cache leaves the pool
      cache = take_idle_or_new_cache();
      registry.add(link_, cache);
    }
    make_hot(cache);
    return *cache;
  }

  // A thread_local destructor allocating after this thread returned its
  // caches: borrows an idle (or new) cache for this one call.
  void* allocate_borrowed(std::size_t index) {
    struct give_back {
      concurrent_multipool_resource& pool;
      thread_cache* cache;
      ~give_back() { pool.return_cache(cache); }
    } borrowed{*this, take_idle_or_new_cache()};
    return allocate_in(*borrowed.cache, index);
  }

  thread_cache* take_idle_or_new_cache() {
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    if (!idle_caches_.empty()) {
      thread_cache* cache = idle_caches_.back();
      idle_caches_.pop_back();
      return cache;
    }
    caches_.reserve(caches_.size() + 1);
    idle_caches_.reserve(caches_.size() + 1);  // return_cache() never allocates
    auto* cache = new thread_cache;
    for (std::size_t i = 0; i < class_count_; ++i)
      cache->classes[i].block_size = detail::class_size(i);
    caches_.push_back(cache);
    return cache;
  }

  void return_cache(void* cache) noexcept override {
    const std::lock_guard<std::mutex> lock{cache_mutex_};
    idle_caches_.push_back(static_cast<thread_cache*>(cache));
  }

  [[gnu::noinline]] void* refill_and_allocate(thread_cache& cache, size_class& c) {
    const auto index = static_cast<std::size_t>(&c - cache.classes.data());
    if (c.remote_taken != nullptr ||
        cache.remote_frees[index].load(std::memory_order_relaxed) != nullptr)
      drain_remote_frees(cache, index);
    if (c.free != nullptr) return pop(c);
    if (c.cursor == c.end) add_segment(cache, c);
    count(c.in_use, 1);
    return detail::take_blocks(c.cursor, c.end, c.block_size, c.free);
  }

  // Moves up to remote_drain_batch blocks of class `index` other threads freed back onto its
  // free list, taking the class's shared list (one exchange) when the taken one is empty.
  void drain_remote_frees(thread_cache& cache, std::size_t index) noexcept {
    size_class& c = cache.classes[index];
    if (c.remote_taken == nullptr)
      c.remote_taken = cache.remote_frees[index].exchange(nullptr, std::memory_order_acquire);
    free_node* node = c.remote_taken;
    std::size_t drained = 0;
    for (; node != nullptr && drained < remote_drain_batch; ++drained) {
      free_node* next = node->next;
      node->next = c.free;
      c.free = node;
      node = next;
    }
    c.remote_taken = node;
    count(c.in_use, -static_cast<std::ptrdiff_t>(drained));
    cache.remote_freed[index].fetch_sub(drained, std::memory_order_relaxed);
  }

  // Puts the blocks of the class's current segment not carved yet on its free list.
  static void free_uncarved_blocks(size_class& c) noexcept {
    while (c.cursor != c.end) {
      void* first = detail::take_blocks(c.cursor, c.end, c.block_size, c.free);
      c.free = ::new (first) free_node{c.free};
    }
  }

  void add_segment(thread_cache& cache, size_class& c) {
    const auto index = static_cast<std::size_t>(&c - cache.classes.data());
    void* raw = nullptr;
    {
      const std::lock_guard<std::mutex> lock{upstream_mutex_};
      raw = upstream_->allocate(segment_size_, segment_size_);
      if (!detail::is_aligned(raw, segment_size_)) refuse_misaligned_segment(raw);
    }
    cache.segments = ::new (raw) segment_header{&cache, index, cache.segments};
    const std::size_t offset = std::max(detail::class_alignment(c.block_size),
                                        std::size_t{64});  // header, on its own line
    const std::size_t blocks = (segment_size_ - offset) / c.block_size;
    c.cursor = static_cast<std::byte*>(raw) + offset;
    c.end = c.cursor + blocks * c.block_size;
    count(c.capacity, static_cast<std::ptrdiff_t>(blocks));
    count(c.segments, 1);
  }

  // Blocks find their segment by masking their address, so a segment the
  // upstream did not align would be found out by a crash later: given back,
  // and the request fails. Caller holds the upstream mutex.
  [[noreturn]] void refuse_misaligned_segment(void* raw) {
    upstream_->deallocate(raw, segment_size_, segment_size_);
    fail<std::bad_alloc>("alloclab::concurrent_multipool_resource: misaligned segment");
  }

  [[gnu::noinline]] void deallocate_slow(void* p, const segment_header& segment) {
    // An exiting thread has returned its caches: every free is remote now.
    auto* mine = detail::thread_exiting()
                     ? nullptr
                     : static_cast<thread_cache*>(detail::thread_registry::instance().find(link_));
    if (mine != nullptr) make_hot(mine);
    if (segment.owner == mine) return push(mine->classes[segment.class_index], p);
    segment.owner->remote_freed[segment.class_index].fetch_add(1, std::memory_order_relaxed);
    std::atomic<free_node*>& list = segment.owner->remote_frees[segment.class_index];
    auto* node = ::new (p) free_node{list.load(std::memory_order_relaxed)};
    while (!list.compare_exchange_weak(node->next, node, std::memory_order_release,
                                       std::memory_order_relaxed)) {
    }
  }

  [[gnu::noinline]] void* allocate_outside_classes(std::size_t bytes, std::size_t alignment) {
    detail::require_valid_alignment(alignment);
    detail::require_representable_size(bytes);
    if (bytes == 0) {  // served as 1 byte
      const std::size_t index = class_of(1, alignment);
      if (index != no_class) return allocate_from(index);
      bytes = 1;
    }
    if (options_.oversize == oversize_policy::throw_bad_alloc)
      fail<multipool_exhausted>("alloclab::concurrent_multipool_resource: oversize request", bytes,
                                alignment);
    void* p = nullptr;
    {
      const std::lock_guard<std::mutex> lock{upstream_mutex_};
      p = upstream_->allocate(bytes, alignment);
    }
    oversize_allocations_.fetch_add(1, std::memory_order_relaxed);
    return p;
  }

  [[gnu::noinline]] void deallocate_outside_classes(void* p, std::size_t bytes,
                                                    std::size_t alignment) {
    if (bytes == 0) {
      if (class_of(1, alignment) != no_class) return deallocate_pooled(p);
      bytes = 1;
    }
    const std::lock_guard<std::mutex> lock{upstream_mutex_};
    upstream_->deallocate(p, bytes, alignment);
  }

  // Caller holds the upstream mutex, or is the destructor.
  void release_segments(thread_cache& cache) noexcept {
    while (cache.segments != nullptr) {
      segment_header* next = cache.segments->next;
      upstream_->deallocate(cache.segments, segment_size_, segment_size_);
      cache.segments = next;
    }
    for (size_class& c : cache.classes) {
      c.free = c.remote_taken = nullptr;
      c.cursor = c.end = nullptr;
      c.in_use.store(0, std::memory_order_relaxed);
      c.capacity.store(0, std::memory_order_relaxed);
      c.segments.store(0, std::memory_order_relaxed);
    }
    for (std::atomic<free_node*>& list : cache.remote_frees)
      list.store(nullptr, std::memory_order_relaxed);
    for (std::atomic<std::size_t>& freed : cache.remote_freed)
      freed.store(0, std::memory_order_relaxed);
  }

  std::pmr::memory_resource* upstream_;
  concurrent_multipool_options options_;
  std::size_t max_block_size_;
  std::size_t class_count_;
  std::size_t segment_size_;
  detail::lender_link* link_;  // shared with the registries of threads that used this
  std::size_t hot_slot_;
  mutable std::mutex cache_mutex_;  // caches_, idle_caches_
  std::mutex upstream_mutex_;       // every upstream call
  std::vector<thread_cache*> caches_;
  std::vector<thread_cache*> idle_caches_;
  std::atomic<std::size_t> oversize_allocations_{0};
};

}  // namespace alloclab
