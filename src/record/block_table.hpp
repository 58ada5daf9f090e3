// One recording thread's live blocks: pointer -> block key (thread << 44 | id). Each thread owns
// one table and inserts and removes its own blocks with plain loads and stores: no lock, no atomic
// read-modify-write. Another thread freeing one of them (a cross-thread free) takes it out with
// take_foreign(): under the table's foreign lock, with a compare-and-swap of the slot's key. The
// owner takes that lock only to rebuild the table.
//
// Open addressing with linear probing. A removed entry leaves a tombstone, so entries never move
// while other threads may probe; the owner rebuilds the table (dropping tombstones, growing or
// shrinking it to at most 1/4 full, 1/16 while under 64 KiB) when live entries and tombstones
// fill 3/4 of it. Memory comes from mmap, never from malloc, so the table can be used inside
// malloc.
//
// Where a key goes (keys are addresses, `granule` = key >> 4): the home slot is a hash of
// key >> 8 (a 256-byte window) plus the granule within the window. Blocks allocated together
// share one or two of the table's cache lines instead of a cache miss each, and the multiplicative
// (Fibonacci) hash spreads a heap's windows evenly, so probes stay short at any size.
//
// Why each slot is safe without the owner locking: a slot's key only goes empty -> key (owner),
// key -> tombstone (the owner, or the one thread freeing that block: the program frees a block
// once), tombstone -> key (owner). A probe for a live key therefore always reaches it, and a
// foreign thread's compare-and-swap can only hit the key it frees.
#pragma once

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace alloclab::record {

namespace detail {
/// A block_table slot: key 0 empty, all ones a tombstone.
struct table_slot {
  std::atomic<std::uintptr_t> key{0};
  std::atomic<std::uint64_t> value{0};
};
}  // namespace detail

class block_table {
 public:
  block_table() noexcept = default;
  ~block_table() { release(); }
  block_table(const block_table&) = delete;
  block_table& operator=(const block_table&) = delete;

  /// What take() and find() return for a key that is not in the table (never a value).
  static constexpr std::uint64_t absent = std::uint64_t{1} << 63;

  /// Owner only. Inserts `key` (an address, never 0) with `value` (not `absent`); false when
  /// memory for the table ran out. The recorder inserts a block's address when malloc returns
  /// it, after the free of the address's previous block took that entry. A key inserted again
  /// while live (its free went unseen) gets an entry that lookups find first; the older one
  /// comes back when the newer is taken, and goes at the next rebuild.
  __attribute__((always_inline)) bool insert(std::uintptr_t key, std::uint64_t value) noexcept {
    if (!reserve()) return false;
    insert_reserved(key, value);
    return true;
  }
  /// Owner only. Makes room for one insert_reserved() (rebuilding the table when it is full);
  /// false when memory for the table ran out.
  __attribute__((always_inline)) bool reserve() noexcept {
    if (__builtin_expect(used_ >= grow_at_, 0)) return rebuild();
    return true;
  }
  /// Owner only. insert() after a reserve() that returned true.
  __attribute__((always_inline)) void insert_reserved(std::uintptr_t key,
                                                      std::uint64_t value) noexcept {
    slot* const slots = slots_;
    const std::size_t mask = mask_;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
      const std::uintptr_t k = slots[i].key.load(std::memory_order_relaxed);
      if (k + 1 <= 1) {  // empty or tombstone
        used_ += k == empty;
        slots[i].value.store(value, std::memory_order_relaxed);
        slots[i].key.store(key, std::memory_order_release);
        return;
      }
      if (k == key) {
        slots[i].value.store(value, std::memory_order_relaxed);
        return;
      }
    }
  }

  /// Owner only. Removes `key` and returns its value, or `absent`.
  __attribute__((always_inline)) std::uint64_t take(std::uintptr_t key) noexcept {
    slot* const slots = slots_;
    const std::size_t mask = mask_;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
      const std::uintptr_t k = slots[i].key.load(std::memory_order_relaxed);
      if (k == key) {
        slots[i].key.store(tombstone, std::memory_order_relaxed);
        return slots[i].value.load(std::memory_order_relaxed);
      }
      if (k == empty) return absent;
    }
  }

  /// Owner only. `key`'s value, or `absent`.
  std::uint64_t find(std::uintptr_t key) const noexcept {
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const std::uintptr_t k = slots_[i].key.load(std::memory_order_relaxed);
      if (k == key) return slots_[i].value.load(std::memory_order_relaxed);
      if (k == empty) return absent;
    }
  }

  /// Any thread but the owner: removes `key` (a block that thread frees) and returns its value,
  /// or `absent`.
  std::uint64_t take_foreign(std::uintptr_t key) noexcept { return foreign(key, true); }
  /// Any thread but the owner: `key`'s value, or `absent`.
  std::uint64_t find_foreign(std::uintptr_t key) noexcept { return foreign(key, false); }

  /// Whether the table is too big to stay in the cache (its lookups are likely misses).
  bool big() const noexcept { return mask_ >= prefetched_slots; }
  /// Owner only. Starts loading `key`'s home slot into the cache.
  __attribute__((always_inline)) void prefetch(std::uintptr_t key) const noexcept {
    __builtin_prefetch(&slots_[home(key)], 1);
  }

  /// Live entries. Owner only (or an idle table): tests and diagnostics.
  std::size_t size() const noexcept {
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity(); ++i) live += is_live(slots_[i].key.load());
    return live;
  }
  /// The longest distance, in slots, from a live key's home slot to where it sits: what the worst
  /// lookup walks. Owner only (or an idle table): tests and diagnostics.
  std::size_t longest_probe() const noexcept {
    std::size_t longest = 0;
    for (std::size_t i = 0; i < capacity(); ++i) {
      const std::uintptr_t k = slots_[i].key.load();
      if (is_live(k)) longest = std::max(longest, (i - home(k)) & mask_);
    }
    return longest;
  }
  /// Unmaps the table (it is then empty). Owner only, with no foreign thread inside.
  void release() noexcept {
    if (slots_ != no_slots()) munmap(slots_, capacity() * sizeof(slot));
    if (spare_ != nullptr) munmap(spare_, spare_slots_ * sizeof(slot));
    slots_ = no_slots();
    spare_ = nullptr;
    mask_ = used_ = grow_at_ = spare_slots_ = 0;
  }

 private:
  static constexpr std::uintptr_t empty = 0;
  static constexpr std::uintptr_t tombstone = ~std::uintptr_t{0};  // never a user-space address
  using slot = detail::table_slot;
  static constexpr std::size_t initial_slots = 256;
  // A table smaller than this (64 KiB) rebuilds to at most 1/16 full, bigger ones to 1/4: in a
  // sparse table a key nearly always sits in its home slot, so lookups take the predicted branch
  // (the 64-live loop at 1/8 full: a fifth of the lookups probed twice, 2.7 ns more per pair).
  static constexpr std::size_t sparse_slots_limit = std::size_t{1} << 12;
  static constexpr std::size_t prefetched_slots = std::size_t{1} << 14;
  static constexpr std::size_t spare_slots_limit = std::size_t{1} << 16;  // 1 MiB
  // A big table is read at random: huge pages (where THP allows them) save most TLB misses.
  static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
  static constexpr unsigned window_bits = 8;  // 16 granules of 16 bytes
  static constexpr std::size_t window_granules = std::size_t{1} << (window_bits - 4);

  static bool is_live(std::uintptr_t k) noexcept { return k + 1 > 1; }
  // Before the first insert the table is one empty slot that is never written (the first insert
  // rebuilds), so lookups need no test for a missing array.
  static slot* no_slots() noexcept { return &nothing_; }
  std::size_t capacity() const noexcept { return slots_ == no_slots() ? 0 : mask_ + 1; }
  // The window's hashed place plus the granule within the window.
  static std::size_t home(std::uintptr_t key, std::size_t mask, unsigned shift) noexcept {
    const auto window =
        static_cast<std::size_t>(((key >> window_bits) * 0x9E3779B97F4A7C15ull) >> shift);
    return (window + ((key >> 4) & (window_granules - 1))) & mask;
  }
  std::size_t home(std::uintptr_t key) const noexcept { return home(key, mask_, window_shift_); }

  // Where a lookup of live key `k` stops.
  std::size_t first_slot_of(std::uintptr_t k) const noexcept {
    std::size_t i = home(k);
    while (slots_[i].key.load(std::memory_order_relaxed) != k) i = (i + 1) & mask_;
    return i;
  }

  void lock() noexcept {
    while (foreign_lock_.exchange(true, std::memory_order_acquire))
      while (foreign_lock_.load(std::memory_order_relaxed)) sched_yield();
  }
  void unlock() noexcept { foreign_lock_.store(false, std::memory_order_release); }

  __attribute__((noinline)) std::uint64_t foreign(std::uintptr_t key, bool remove) noexcept {
    lock();
    std::uint64_t value = absent;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      std::uintptr_t k = slots_[i].key.load(std::memory_order_acquire);
      if (k == key) {
        value = slots_[i].value.load(std::memory_order_relaxed);
        if (remove &&
            !slots_[i].key.compare_exchange_strong(k, tombstone, std::memory_order_acq_rel))
          value = absent;  // its owner took it meanwhile: a double free
        break;
      }
      if (k == empty) break;
    }
    unlock();
    return value;
  }

  // An empty array of `slots`: the spare when it has that size, else fresh memory (null when
  // there is none).
  slot* empty_array(std::size_t slots) noexcept {
    if (spare_ != nullptr && spare_slots_ == slots) {
      slot* array = spare_;
      spare_ = nullptr;
      std::memset(static_cast<void*>(array), 0, slots * sizeof(slot));
      return array;
    }
    void* memory = mmap(nullptr, slots * sizeof(slot), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return nullptr;
    if (slots * sizeof(slot) >= huge_page_bytes)
      madvise(memory, slots * sizeof(slot), MADV_HUGEPAGE);
    return static_cast<slot*>(memory);
  }

  // An array the table no longer uses: kept as the spare when small (a table that stays the
  // same size rebuilds without a system call), else unmapped.
  void retire(slot* array, std::size_t slots) noexcept {
    if (array == no_slots()) return;
    if (spare_ == nullptr && slots <= spare_slots_limit) {
      spare_ = array;
      spare_slots_ = slots;
    } else {
      munmap(array, slots * sizeof(slot));
    }
  }

  // Owner: a new array holding only the live entries that lookups find (not an older entry of a
  // key inserted again), at most 1/4 full (1/16 when small), so that at least half its slots fill
  // before the next rebuild. Foreign threads are kept out (they probe the old array under the same lock) until it
  // replaces the old one.
  __attribute__((noinline, cold)) bool rebuild() noexcept {
    lock();
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity(); ++i) live += is_live(slots_[i].key.load());
    std::size_t slots = initial_slots;
    while (slots / (slots < sparse_slots_limit ? 16 : 4) < live + 1) slots *= 2;
    slot* const array = empty_array(slots);
    if (array == nullptr) {
      unlock();
      return false;
    }
    const std::size_t mask = slots - 1;
    const auto shift = static_cast<unsigned>(__builtin_clzll(mask));
    std::size_t copied = 0;
    for (std::size_t i = 0; i < capacity(); ++i) {
      const std::uintptr_t k = slots_[i].key.load(std::memory_order_relaxed);
      if (!is_live(k) || first_slot_of(k) != i) continue;
      ++copied;
      std::size_t j = home(k, mask, shift);
      while (array[j].key.load(std::memory_order_relaxed) != empty) j = (j + 1) & mask;
      array[j].value.store(slots_[i].value.load(std::memory_order_relaxed),
                           std::memory_order_relaxed);
      array[j].key.store(k, std::memory_order_relaxed);
    }
    retire(slots_, capacity());
    slots_ = array;
    mask_ = mask;
    window_shift_ = shift;
    used_ = copied;
    grow_at_ = slots / 4 * 3;
    unlock();
    return true;
  }

  static inline slot nothing_;  ///< the table before its first insert

  slot* slots_ = no_slots();
  std::size_t mask_ = 0;
  unsigned window_shift_ = 0;  ///< 64 - log2(slots): a window hash's top bits index a slot
  std::size_t used_ = 0;       ///< live entries and tombstones
  std::size_t grow_at_ = 0;    ///< `used_` that makes the next insert rebuild
  slot* spare_ = nullptr;      ///< an earlier array, reused by a rebuild to the same size
  std::size_t spare_slots_ = 0;
  alignas(64) std::atomic<bool> foreign_lock_{false};
};

}  // namespace alloclab::record
