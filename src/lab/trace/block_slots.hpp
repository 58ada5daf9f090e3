// The replay engine's live blocks (trace/replay.cpp): where a replayed block comes from (the
// process-wide malloc or a std::pmr::memory_resource) and one replaying thread's table of the
// blocks the trace allocated and has not freed yet, sized by the live set, kept in mmap'd memory
// so the malloc under test serves only the trace's own calls.
//
// Example:
//   alloclab::trace::block_slots live(false);
//   const alloclab::trace::block_source malloc_source(nullptr);
//   live.insert(0, {std::malloc(32), 32, 0});
//   alloclab::trace::block_slot slot;
//   if (live.remove(0, slot)) malloc_source.deallocate(slot.pointer, slot);
#pragma once

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <new>

#include "trace/trace_reader.hpp"

namespace alloclab::trace {

// A block the replay holds: its pointer (null: the trace created it but the replay skipped the
// call), size and alignment.
struct block_slot {
  void* pointer = nullptr;
  std::uint64_t size = 0;
  std::uint32_t alignment = 0;  ///< resource replay: what the block was allocated with
};

/// Where the blocks come from: the process-wide malloc, or a memory_resource.
class block_source {
 public:
  explicit block_source(std::pmr::memory_resource* resource) : resource_(resource) {}
  bool is_malloc() const noexcept { return resource_ == nullptr; }
  /// A block of `bytes` aligned to `alignment` (0: malloc's default).
  void* allocate(std::uint64_t bytes, std::size_t alignment) const {
    return resource_->allocate(std::max<std::uint64_t>(bytes, 1), pmr_alignment(alignment));
  }
  void deallocate(void* p, const block_slot& slot) const {
    if (resource_ == nullptr) {
      std::free(p);
      return;
    }
    resource_->deallocate(p, std::max<std::uint64_t>(slot.size, 1), pmr_alignment(slot.alignment));
  }
  /// realloc through the resource: a new block, the smaller size copied, the old one returned.
  void* reallocate(void* old, const block_slot& old_slot, std::uint64_t bytes) const {
    void* p = allocate(bytes, 0);
    if (old != nullptr) {
      std::memcpy(p, old, std::min(old_slot.size, bytes));
      deallocate(old, old_slot);
    }
    return p;
  }

 private:
  static std::size_t pmr_alignment(std::size_t alignment) noexcept {
    return std::max<std::size_t>(alignment, alignof(std::max_align_t));
  }
  std::pmr::memory_resource* resource_;
};

/// One thread's live blocks by id: an open-addressing table (linear probing, deletion by
/// backward shift) of the blocks the trace allocated and has not freed yet, so its size follows
/// the live set, not the trace's length. Only the owning thread inserts; any thread removes
/// (cross-thread frees). With `shared`, every access holds a spin lock (uncontended but for
/// cross-thread frees); a one-thread trace takes none. The table comes from mmap, not from the
/// malloc under test.
class block_slots {
 public:
  explicit block_slots(bool shared) : shared_(shared) { resize(initial_capacity); }
  ~block_slots() { unmap(entries_, capacity_); }
  block_slots(const block_slots&) = delete;
  block_slots& operator=(const block_slots&) = delete;

  /// The owner adds block `id` (ids grow by one per creating call, skipped calls included).
  void insert(std::uint64_t id, const block_slot& slot) {
    if (slot.size >= (std::uint64_t{1} << 56)) throw trace_error("a block above 2^56 bytes");
    {
      const guard g(*this);
      if (4 * (count_ + 1) > 3 * capacity_) resize(2 * capacity_);
      std::size_t i = home(id);
      while (entries_[i].key() != 0) i = next(i);
      entries_[i] = pack(id, slot);
      ++count_;
      peak_count_ = std::max(peak_count_, count_);
    }
    created_.store(id + 1, std::memory_order_release);
  }
  /// Removes block `id`; false when it is not live (not created yet, or freed already).
  bool remove(std::uint64_t id, block_slot& out) {
    const guard g(*this);
    std::size_t i = find_index(id);
    if (i == npos) return false;
    out = unpack(entries_[i]);
    erase_at(i);
    if (capacity_ > initial_capacity && 8 * count_ < capacity_) resize(capacity_ / 2);
    return true;
  }
  /// Program work: touches a live block near position `seed` (the first of the next 64 entries
  /// with a pointer; the table is 1/8 full or has at most 16 entries): reads a byte per 64-byte
  /// line of its first `cap` bytes and writes its first byte. False when it found none.
  bool touch_any(std::uint64_t seed, std::uint64_t cap, std::uint64_t& touched,
                 std::uint64_t& sink) {
    const guard g(*this);
    for (std::size_t n = 0, i = seed & (capacity_ - 1); n < touch_probes; ++n, i = next(i)) {
      if (entries_[i].key() == 0 || entries_[i].pointer() == nullptr) continue;
      const std::uint64_t bytes = std::min(unpack(entries_[i]).size, cap);
      auto* p = static_cast<volatile unsigned char*>(entries_[i].pointer());
      for (std::uint64_t b = 0; b < bytes; b += 64) sink += p[b];
      if (bytes != 0) p[0] = static_cast<unsigned char>(sink);
      touched += bytes;
      return true;
    }
    return false;
  }
  /// A copy of live block `id`'s slot; false when it is not live.
  bool find(std::uint64_t id, block_slot& out) const {
    const guard g(*this);
    const std::size_t i = find_index(id);
    if (i == npos) return false;
    out = unpack(entries_[i]);
    return true;
  }
  /// Ids below this were created by the owner (published after the insert).
  std::uint64_t created() const noexcept { return created_.load(std::memory_order_acquire); }
  /// Frees every block still allocated (the trace never freed it); returns how many.
  std::uint64_t release_all(const block_source& source) {
    std::uint64_t released = 0;
    for (std::size_t i = 0; i < capacity_; ++i) {
      if (entries_[i].key() == 0 || entries_[i].pointer() == nullptr) continue;
      const block_slot slot = unpack(entries_[i]);
      source.deallocate(slot.pointer, slot);
      entries_[i].pointer_alignment &= ~pointer_mask;
      ++released;
    }
    return released;
  }
  std::uint64_t peak_bytes() const noexcept { return peak_capacity_ * sizeof(entry); }
  std::uint64_t peak_count() const noexcept { return peak_count_; }

 private:
  static constexpr std::size_t initial_capacity = 16;
  static constexpr std::size_t touch_probes = 64;
  static constexpr std::size_t npos = ~std::size_t{0};
  // 16 bytes a block. A size of big_size or more is kept in the block itself, at
  // big_size_offset (past what program work touches), so the entry holds only smaller sizes.
  static constexpr unsigned key_bits = 45;  // id + 1 of an id below 2^44
  static constexpr std::uint64_t key_mask = (std::uint64_t{1} << key_bits) - 1;
  static constexpr std::uint64_t big_size = (std::uint64_t{1} << (64 - key_bits)) - 1;
  static constexpr std::uint64_t big_size_offset = std::uint64_t{1} << 18;
  static constexpr std::uint64_t pointer_mask = (std::uint64_t{1} << 48) - 1;
  struct entry {
    std::uint64_t key_size;           ///< id + 1 (0: empty), size (big_size: in the block)
    std::uint64_t pointer_alignment;  ///< pointer (48 bits), log2 alignment + 1 (8 bits at 56)
    std::uint64_t key() const noexcept { return key_size & key_mask; }
    void* pointer() const noexcept {
      return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer_alignment & pointer_mask));
    }
  };
  static_assert(sizeof(entry) == 16);
  class guard {
   public:
    explicit guard(const block_slots& t) : t_(t) {
      if (!t_.shared_) return;
      while (t_.lock_.exchange(true, std::memory_order_acquire)) sched_yield();
    }
    ~guard() {
      if (t_.shared_) t_.lock_.store(false, std::memory_order_release);
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

   private:
    const block_slots& t_;
  };

  // A big block's size goes into the block (written after the replay's memset of it).
  static entry pack(std::uint64_t id, const block_slot& s) {
    const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(s.pointer));
    if ((address & ~pointer_mask) != 0)
      throw trace_error("a block above 2^48 in the address space");
    const std::uint64_t log2 =
        s.alignment == 0 ? 0 : static_cast<std::uint64_t>(__builtin_ctz(s.alignment)) + 1;
    const bool big = s.size >= big_size;
    if (big && s.pointer != nullptr)
      std::memcpy(static_cast<char*>(s.pointer) + big_size_offset, &s.size, sizeof s.size);
    return {(id + 1) | ((big ? big_size : s.size) << key_bits), address | (log2 << 56)};
  }
  static block_slot unpack(const entry& e) noexcept {
    block_slot s;
    s.pointer = e.pointer();
    s.size = e.key_size >> key_bits;
    if (s.size == big_size && s.pointer != nullptr)
      std::memcpy(&s.size, static_cast<const char*>(s.pointer) + big_size_offset, sizeof s.size);
    const std::uint64_t log2 = e.pointer_alignment >> 56;
    s.alignment = log2 == 0 ? 0 : std::uint32_t{1} << (log2 - 1);
    return s;
  }
  std::size_t home(std::uint64_t id) const noexcept {
    return static_cast<std::size_t>(((id + 1) * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
  }
  std::size_t next(std::size_t i) const noexcept { return (i + 1) & (capacity_ - 1); }
  std::size_t find_index(std::uint64_t id) const noexcept {
    for (std::size_t i = home(id);; i = next(i)) {
      if (entries_[i].key() == id + 1) return i;
      if (entries_[i].key() == 0) return npos;
    }
  }
  // Backward shift: moves later entries of the probe run into the hole.
  void erase_at(std::size_t hole) noexcept {
    for (std::size_t j = next(hole); entries_[j].key() != 0; j = next(j)) {
      const std::size_t h = home(entries_[j].key() - 1);
      const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (stays) continue;
      entries_[hole] = entries_[j];
      hole = j;
    }
    entries_[hole] = entry{0, 0};
    --count_;
  }
  void resize(std::size_t capacity) {
    entry* old = entries_;
    const std::size_t old_capacity = capacity_;
    entries_ = map(capacity);
    capacity_ = capacity;
    bits_ = static_cast<unsigned>(__builtin_ctzll(capacity));
    peak_capacity_ = std::max(peak_capacity_, capacity);
    for (std::size_t i = 0; i < old_capacity; ++i) {
      if (old[i].key() == 0) continue;
      std::size_t j = home(old[i].key() - 1);
      while (entries_[j].key() != 0) j = next(j);
      entries_[j] = old[i];
    }
    unmap(old, old_capacity);
  }
  static entry* map(std::size_t count) {
    void* p = ::mmap(nullptr, count * sizeof(entry), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<entry*>(p);  // zero pages are empty entries
  }
  static void unmap(entry* p, std::size_t count) noexcept {
    if (p != nullptr) ::munmap(p, count * sizeof(entry));
  }

  const bool shared_;
  mutable std::atomic<bool> lock_{false};
  entry* entries_ = nullptr;
  std::size_t capacity_ = 0;
  unsigned bits_ = 0;
  std::size_t count_ = 0;
  std::size_t peak_count_ = 0;
  std::size_t peak_capacity_ = 0;
  std::atomic<std::uint64_t> created_{0};
};

}  // namespace alloclab::trace
