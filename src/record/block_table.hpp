// The recorder's map from live pointer to block (thread index, id): 16 shards of open addressing
// with linear probing and backward-shift deletion, each behind a spin lock that is only taken once
// the table is shared (set_shared: a second thread records). Memory comes from mmap, never from
// malloc, so the table can be used inside malloc.
//
// Where a key goes (keys are 16-byte-aligned addresses; `granule` = key >> 4):
// | part       | from                                   | why                                     |
// |------------|----------------------------------------|-----------------------------------------|
// | shard      | hash of key >> 26 (a 64 MiB region)    | glibc gives each thread's arena its own |
// |            |                                        | 64 MiB heap: threads rarely share locks |
// |            |                                        | or cache lines                          |
// | home slot  | hash of key >> 8 (a 256-byte window),  | blocks allocated together sit in one or |
// |            | plus the granule within the window     | two cache lines of the table, not one   |
// |            |                                        | cache miss each; windows spread evenly  |
// The hashes are multiplicative (Fibonacci): their top bits mix every bit of the address, so a
// heap's consecutive windows spread evenly over slots and probes stay short at any size.
#pragma once

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace alloclab::record {

class block_table {
 public:
  constexpr block_table() = default;
  ~block_table() {
    for (shard& s : shards_)
      if (s.slots != nullptr) munmap(s.slots, s.capacity() * sizeof(slot));
  }
  block_table(const block_table&) = delete;
  block_table& operator=(const block_table&) = delete;

  /// From now on every operation locks its shard. The caller must make sure no thread is inside
  /// an unlocked operation (the recorder uses membarrier and its per-thread busy flags).
  void set_shared() noexcept { shared_.store(true, std::memory_order_seq_cst); }
  bool shared() const noexcept { return shared_.load(std::memory_order_relaxed); }

  /// Inserts or overwrites `key` (never 0). False when memory for growing ran out.
  __attribute__((always_inline)) bool insert(std::uintptr_t key, std::uint64_t value) noexcept {
    shard& s = shard_of(key);
    lock_guard g(s, shared());
    if (s.count >= s.grow_at && !grow(s)) return false;
    std::size_t i = start(key, s);
    while (s.slots[i].key != 0 && s.slots[i].key != key) i = (i + 1) & s.mask;
    if (s.slots[i].key == 0) ++s.count;
    s.slots[i] = {key, value};
    return true;
  }

  /// Removes `key` and returns its value through `value`; false when absent.
  __attribute__((always_inline)) bool remove(std::uintptr_t key, std::uint64_t& value) noexcept {
    shard& s = shard_of(key);
    lock_guard g(s, shared());
    if (s.slots == nullptr) return false;
    std::size_t i = start(key, s);
    while (s.slots[i].key != key) {
      if (s.slots[i].key == 0) return false;
      i = (i + 1) & s.mask;
    }
    value = s.slots[i].value;
    erase_at(s, i);
    return true;
  }

  /// Starts loading `key`'s home slot into the cache (no effect on the contents). Only while the
  /// table is not shared: it reads a shard without its lock.
  __attribute__((always_inline)) void prefetch(std::uintptr_t key) const noexcept {
    if (shared()) return;
    const shard& s = shard_of(key);
    if (s.mask >= prefetched_slots) __builtin_prefetch(&s.slots[start(key, s)], 1);
  }

  /// The longest distance, in slots, from a live key's home slot to where it sits: what the worst
  /// lookup walks. Not locked: for tests and diagnostics of an idle table.
  std::size_t longest_probe() const noexcept {
    std::size_t longest = 0;
    for (const shard& s : shards_)
      for (std::size_t i = 0; i < s.capacity(); ++i)
        if (s.slots[i].key != 0)
          longest = std::max(longest, (i - start(s.slots[i].key, s)) & s.mask);
    return longest;
  }

  bool find(std::uintptr_t key, std::uint64_t& value) noexcept {
    shard& s = shard_of(key);
    lock_guard g(s, shared());
    if (s.slots == nullptr) return false;
    for (std::size_t i = start(key, s); s.slots[i].key != 0; i = (i + 1) & s.mask) {
      if (s.slots[i].key == key) {
        value = s.slots[i].value;
        return true;
      }
    }
    return false;
  }

 private:
  struct slot {
    std::uintptr_t key;
    std::uint64_t value;
  };
  struct alignas(64) shard {
    std::atomic<bool> locked{false};
    slot* slots = nullptr;
    std::size_t mask = 0;
    std::size_t count = 0;
    std::size_t grow_at = 0;    ///< count that makes the next insert grow (3/4 full)
    unsigned window_shift = 0;  ///< 64 - log2(slots): a window hash's top bits index a slot
    std::size_t capacity() const noexcept { return slots == nullptr ? 0 : mask + 1; }
  };
  class lock_guard {
   public:
    lock_guard(shard& s, bool lock) noexcept : s_(lock ? &s : nullptr) {
      if (s_ == nullptr) return;
      while (s_->locked.exchange(true, std::memory_order_acquire)) {
        while (s_->locked.load(std::memory_order_relaxed)) sched_yield();
      }
    }
    ~lock_guard() {
      if (s_ != nullptr) s_->locked.store(false, std::memory_order_release);
    }
    lock_guard(const lock_guard&) = delete;
    lock_guard& operator=(const lock_guard&) = delete;

   private:
    shard* s_;
  };

  static constexpr std::size_t shard_bits = 4;
  static constexpr std::size_t initial_slots = 256;
  // Smaller shards stay in the cache: computing their slot twice would cost more than it saves.
  static constexpr std::size_t prefetched_slots = std::size_t{1} << 14;
  // A big table is read at random: huge pages (where THP allows them) save most TLB misses.
  static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

  static constexpr unsigned region_shift = 26;  // glibc's per-thread heaps: 64 MiB, aligned
  static constexpr unsigned window_bits = 8;    // 16 granules of 16 bytes
  static constexpr std::size_t window_granules = std::size_t{1} << (window_bits - 4);

  static std::uint64_t hash(std::uint64_t n) noexcept { return n * 0x9E3779B97F4A7C15ull; }
  shard& shard_of(std::uintptr_t key) noexcept {
    return shards_[hash(key >> region_shift) >> (64 - shard_bits)];
  }
  const shard& shard_of(std::uintptr_t key) const noexcept {
    return shards_[hash(key >> region_shift) >> (64 - shard_bits)];
  }
  // The window's hashed place plus the granule within the window.
  static std::size_t start(std::uintptr_t key, const shard& s) noexcept {
    const auto window = static_cast<std::size_t>(hash(key >> window_bits) >> s.window_shift);
    return (window + ((key >> 4) & (window_granules - 1))) & s.mask;
  }

  static bool grow(shard& s) noexcept {
    const std::size_t slots = s.slots == nullptr ? initial_slots : 2 * (s.mask + 1);
    void* memory = mmap(nullptr, slots * sizeof(slot), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return false;
    if (slots * sizeof(slot) >= huge_page_bytes)
      madvise(memory, slots * sizeof(slot), MADV_HUGEPAGE);
    shard bigger;
    bigger.slots = static_cast<slot*>(memory);
    bigger.mask = slots - 1;
    bigger.window_shift = static_cast<unsigned>(__builtin_clzll(slots - 1));
    for (std::size_t i = 0; i < s.capacity(); ++i) {
      if (s.slots[i].key == 0) continue;
      std::size_t j = start(s.slots[i].key, bigger);
      while (bigger.slots[j].key != 0) j = (j + 1) & bigger.mask;
      bigger.slots[j] = s.slots[i];
    }
    if (s.slots != nullptr) munmap(s.slots, s.capacity() * sizeof(slot));
    s.slots = bigger.slots;
    s.mask = bigger.mask;
    s.window_shift = bigger.window_shift;
    s.grow_at = slots / 4 * 3;
    return true;
  }

  // Backward-shift deletion keeps every probe sequence unbroken without tombstones.
  static void erase_at(shard& s, std::size_t hole) noexcept {
    for (std::size_t j = (hole + 1) & s.mask; s.slots[j].key != 0; j = (j + 1) & s.mask) {
      const std::size_t home = start(s.slots[j].key, s);
      // Move j into the hole when its home is not cyclically within (hole, j].
      const bool home_after_hole = ((j - home) & s.mask) >= ((j - hole) & s.mask);
      if (home_after_hole) {
        s.slots[hole] = s.slots[j];
        hole = j;
      }
    }
    s.slots[hole] = {0, 0};
    --s.count;
  }

  std::atomic<bool> shared_{false};
  shard shards_[std::size_t{1} << shard_bits];
};

}  // namespace alloclab::record
