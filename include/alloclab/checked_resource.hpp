// alloclab/checked_resource.hpp: a test adaptor that catches allocator misuse
// without undefined behaviour, in the spirit of BDE's bslma::TestAllocator.
//
// Every block is recorded with its size, alignment and call site, and
// surrounded by guard bytes (the returned pointer keeps the requested
// alignment). The resource detects, counts and reports:
//
// | misuse                | detected when                                        |
// |-----------------------|------------------------------------------------------|
// | `leak`                | blocks are still live at destruction (or `check_no_leaks`) |
// | `double_free`         | a pointer is freed again while its block is in quarantine |
// | `unknown_pointer`     | a pointer this resource never handed out (or freed long ago) is freed |
// | `size_mismatch`       | deallocate names a size other than the allocation's  |
// | `alignment_mismatch`  | deallocate names another alignment                   |
// | `underrun`, `overrun` | the guard bytes before or after a block were written (at its free, or by `check_all_guards`) |
// | `write_after_free`    | a quarantined block was written (when it leaves quarantine, or by `check_all_guards`) |
// | `reissued_live_block` | the upstream handed out memory overlapping a live or quarantined block (e.g. an arena rewound under live blocks) |
//
// Bookkeeping lives in memory the checker owns: each block's record sits in
// the block itself, in front of the guard, and the index of live blocks is a
// search tree (a treap ordered by address) linked through those records, so
// memory the upstream hands out is checked for overlap with every live block
// before its record is written. No call allocates anything besides the block
// itself, so a failing global heap
// cannot break it and `deallocate` never throws. Freed blocks stay in a
// quarantine of the last `quarantine_blocks` frees (default 16) before they
// go back upstream, so a stale double free is caught even when the upstream
// would have reused the address; `release_quarantine()` empties it.
//
// A double or unknown free is never forwarded upstream; a mismatched free is
// completed with the recorded size and alignment. The reaction to a misuse is
// `record` (count it), `throw_exception` or `abort`. Deallocation never
// throws: in throw mode a misuse found by `deallocate` is reported by the
// next `allocate` or `check_all_guards`, which throw `misuse_error` once for
// it. Fresh blocks are filled with 0xA5 and freed ones with 0xDD, so reads of
// uninitialised or freed memory show. Reports name the allocation's call site
// when one was given (`allocate(bytes, alignment, "where")` or
// `set_call_site`).
//
// Example:
//   #include <alloclab/checked_resource.hpp>
//
//   int main() {
//     alloclab::checked_resource checker;  // reaction: record
//     void* p = checker.allocate(32, 8, "example");
//     checker.deallocate(p, 16, 8);        // wrong size: detected, still freed
//     checker.deallocate(p, 32, 8);        // double free: detected, not forwarded
//     using kind = alloclab::misuse_kind;
//     return checker.misuse_count(kind::size_mismatch) == 1 &&
//                    checker.misuse_count(kind::double_free) == 1 && checker.blocks_in_use() == 0
//                ? 0
//                : 1;
//   }
//
// Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <stdexcept>
#include <string>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"
#include "failure.hpp"

namespace alloclab {

enum class misuse_kind {
  leak,
  double_free,
  unknown_pointer,
  size_mismatch,
  alignment_mismatch,
  underrun,
  overrun,
  write_after_free,
  reissued_live_block,
};
inline constexpr std::size_t misuse_kind_count = 9;

inline constexpr const char* to_string(misuse_kind kind) noexcept {
  constexpr const char* names[misuse_kind_count] = {
      "leak",     "double_free", "unknown_pointer",  "size_mismatch",      "alignment_mismatch",
      "underrun", "overrun",     "write_after_free", "reissued_live_block"};
  return names[static_cast<std::size_t>(kind)];
}

enum class misuse_reaction { record, throw_exception, abort };

class misuse_error : public std::logic_error {
 public:
  misuse_error(misuse_kind kind, const std::string& message)
      : std::logic_error(message), kind_(kind) {}
  misuse_kind kind() const noexcept { return kind_; }

 private:
  misuse_kind kind_;
};

class checked_resource final : public detail::pmr_bridge<checked_resource> {
 public:
  static constexpr std::size_t guard_size = 16;
  static constexpr unsigned char guard_byte = 0xB6;
  static constexpr unsigned char fresh_byte = 0xA5;
  static constexpr unsigned char freed_byte = 0xDD;
  static constexpr std::size_t max_quarantine_blocks = 64;
  static constexpr std::size_t default_quarantine_blocks = 16;

  explicit checked_resource(std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
                            misuse_reaction reaction = misuse_reaction::record,
                            std::size_t quarantine_blocks = default_quarantine_blocks) noexcept
      : upstream_(upstream),
        reaction_(reaction),
        quarantine_limit_(quarantine_blocks < max_quarantine_blocks ? quarantine_blocks
                                                                    : max_quarantine_blocks) {}
  checked_resource(const checked_resource&) = delete;
  checked_resource& operator=(const checked_resource&) = delete;

  // Reports leaks (to stderr unless quiet), then returns every block upstream.
  ~checked_resource() override {
    if (live_blocks_ != 0) {
      if (!quiet_) report_leaks(stderr);
      if (reaction_ == misuse_reaction::abort) std::abort();
    }
    for_each_live([this](block_header* block) { release_raw(block); });
    live_ = nullptr;
    release_quarantine();
  }

  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    return allocate(bytes, alignment, call_site_);
  }

  // As above, tagging the block with `call_site` (a string that outlives it)
  // for reports.
  void* allocate(std::size_t bytes, std::size_t alignment, const char* call_site) {
    raise_pending_misuse();
    detail::require_valid_alignment(alignment);
    const layout shape = layout_for(bytes, alignment);
    auto* raw =
        static_cast<unsigned char*>(upstream_->allocate(shape.raw_size, shape.raw_alignment));
    unsigned char* user = raw + shape.front;
    forget_reissued(raw, shape.raw_size, user, bytes);
    auto* header =
        ::new (raw) block_header{nullptr, nullptr, user, bytes, alignment, shape, call_site};
    std::memset(raw + sizeof(block_header), guard_byte, shape.front - sizeof(block_header));
    std::memset(user, fresh_byte, bytes);
    std::memset(user + bytes, guard_byte, guard_size);
    link(header);
    ++allocations_;
    bytes_in_use_ += bytes;
    return user;
  }

  // Never throws (see the top of this file).
  void deallocate(void* p, std::size_t bytes,
                  std::size_t alignment = alignof(std::max_align_t)) noexcept {
    auto* user = static_cast<unsigned char*>(p);
    block_header* block = unlink(user);
    if (block == nullptr) {
      const bool freed_before = quarantine_index(user) != npos;
      react(freed_before ? misuse_kind::double_free : misuse_kind::unknown_pointer, p, bytes,
            nullptr);
      return;
    }
    bytes_in_use_ -= block->bytes;
    ++deallocations_;
    const bool damaged = count_damage(block, bytes, alignment);
    std::memset(user, freed_byte, block->bytes);
    quarantine(block);
    if (damaged) react_to_recorded();
  }

  // Checks the guards of every live block and the contents of every
  // quarantined one now; records what it finds (each damaged block once).
  // True when everything is intact. In throw mode, throws for a misuse
  // recorded and not yet reported.
  bool check_all_guards() {
    bool intact = true;
    for_each_live([&](block_header* block) {
      if (!block->damage_reported && guards_damaged(block)) {
        block->damage_reported = true;
        intact = false;
        note_guards(block);
      }
    });
    for (std::size_t i = 0; i < quarantined_; ++i) {
      block_header* block = quarantine_[i];
      if (!block->damage_reported && !filled_with(block->user, block->bytes, freed_byte)) {
        block->damage_reported = true;
        intact = false;
        record(misuse_kind::write_after_free, block->user, block->bytes, block->call_site);
      }
    }
    if (!intact) react_to_recorded();
    raise_pending_misuse();
    return intact;
  }

  std::size_t misuse_count(misuse_kind kind) const noexcept {
    return misuse_counts_[static_cast<std::size_t>(kind)];
  }
  std::size_t total_misuses() const noexcept {
    std::size_t total = 0;
    for (std::size_t count : misuse_counts_) total += count;
    return total;
  }
  std::string last_misuse() const { return last_message_.data(); }

  std::size_t blocks_in_use() const noexcept { return live_blocks_; }
  std::size_t bytes_in_use() const noexcept { return bytes_in_use_; }
  std::size_t allocations() const noexcept { return allocations_; }
  std::size_t deallocations() const noexcept { return deallocations_; }
  std::size_t quarantined_blocks() const noexcept { return quarantined_; }

  // Returns every quarantined block upstream (checking each for writes).
  void release_quarantine() noexcept {
    while (quarantined_ != 0) evict_oldest();
  }

  // Counts live blocks as leaks now (for a test's end); true when none.
  bool check_no_leaks() noexcept {
    if (live_blocks_ == 0) return true;
    misuse_counts_[static_cast<std::size_t>(misuse_kind::leak)] += live_blocks_;
    std::snprintf(last_message_.data(), last_message_.size(),
                  "alloclab::checked_resource: %zu block(s), %zu byte(s) still in use",
                  live_blocks_, bytes_in_use_);
    last_kind_ = misuse_kind::leak;
    return false;
  }

  // Tags allocations made without an explicit call site from now on (e.g.
  // through memory_resource*); nullptr clears it.
  void set_call_site(const char* call_site) noexcept { call_site_ = call_site; }
  // Silences the destructor's leak message (for tests that leak on purpose).
  void set_quiet(bool quiet) noexcept { quiet_ = quiet; }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  struct layout {
    std::size_t front;  // bytes from the raw block to the user pointer
    std::size_t raw_size;
    std::size_t raw_alignment;
  };
  // Lives at the start of the raw block; the front guard follows it.
  struct block_header {
    block_header* left;  // live blocks at lower addresses (treap links)
    block_header* right;
    unsigned char* user;
    std::size_t bytes;
    std::size_t alignment;
    layout shape;
    const char* call_site;
    bool damage_reported = false;
  };
  static constexpr std::size_t npos = SIZE_MAX;

  static layout layout_for(std::size_t bytes, std::size_t alignment) {
    const std::size_t raw_alignment =
        alignment > alignof(std::max_align_t) ? alignment : alignof(std::max_align_t);
    bool overflow = false;
    const std::size_t front =
        detail::align_up(sizeof(block_header) + guard_size, raw_alignment, overflow);
    const std::size_t raw_size = detail::checked_add(detail::checked_add(front, bytes), guard_size);
    return {front, raw_size, raw_alignment};
  }

  // The live blocks form a treap: a search tree by address whose priorities
  // (a hash of the address) keep it balanced in expectation. Live blocks never
  // overlap, so ordering by record address and by user pointer agree.
  static std::uintptr_t key(const block_header* block) noexcept {
    return detail::address_of(block);
  }
  static std::uint64_t priority(const block_header* block) noexcept {
    return static_cast<std::uint64_t>(key(block) >> 4) * 0x9E3779B97F4A7C15ull;
  }
  // Splits `tree` into the blocks below `at` and the rest.
  static void split(block_header* tree, std::uintptr_t at, block_header*& below,
                    block_header*& rest) noexcept {
    if (tree == nullptr) {
      below = rest = nullptr;
    } else if (key(tree) < at) {
      split(tree->right, at, tree->right, rest);
      below = tree;
    } else {
      split(tree->left, at, below, tree->left);
      rest = tree;
    }
  }
  // Joins two trees, every block of `low` below every block of `high`.
  static block_header* merge(block_header* low, block_header* high) noexcept {
    if (low == nullptr) return high;
    if (high == nullptr) return low;
    if (priority(low) > priority(high)) {
      low->right = merge(low->right, high);
      return low;
    }
    high->left = merge(low, high->left);
    return high;
  }
  // In address order; `visit` may free the block it is given.
  template <class Visit>
  static void for_each_in(block_header* tree, Visit& visit) {
    if (tree == nullptr) return;
    block_header* right = tree->right;
    for_each_in(tree->left, visit);
    visit(tree);
    for_each_in(right, visit);
  }
  template <class Visit>
  void for_each_live(Visit visit) const {
    for_each_in(live_, visit);
  }

  void link(block_header* block) noexcept {
    block->left = block->right = nullptr;
    block_header* below = nullptr;
    block_header* rest = nullptr;
    split(live_, key(block), below, rest);
    live_ = merge(merge(below, block), rest);
    ++live_blocks_;
  }

  void remove(const block_header* block) noexcept {
    block_header* below = nullptr;
    block_header* rest = nullptr;
    block_header* itself = nullptr;
    block_header* above = nullptr;
    split(live_, key(block), below, rest);
    split(rest, key(block) + 1, itself, above);
    live_ = merge(below, above);
    --live_blocks_;
  }

  // Removes and returns the live block at `user`, or nullptr. Reads only
  // records of live blocks, never memory at an unknown address.
  block_header* unlink(const unsigned char* user) noexcept {
    const std::uintptr_t address = detail::address_of(user);
    block_header* block = live_;
    while (block != nullptr && block->user != user)
      block = address < detail::address_of(block->user) ? block->left : block->right;
    if (block != nullptr) remove(block);
    return block;
  }

  static bool overlaps(const block_header* block, const unsigned char* begin,
                       const unsigned char* end) noexcept {
    return key(block) < detail::address_of(end) &&
           detail::address_of(begin) < key(block) + block->shape.raw_size;
  }

  // The live block overlapping [begin, end), or nullptr: only the last block
  // starting below `end` can, since live blocks do not overlap each other.
  block_header* live_block_overlapping(const unsigned char* begin,
                                       const unsigned char* end) const noexcept {
    block_header* last_below = nullptr;
    for (block_header* block = live_; block != nullptr;) {
      if (key(block) < detail::address_of(end)) {
        last_below = block;
        block = block->right;
      } else {
        block = block->left;
      }
    }
    return last_below != nullptr && overlaps(last_below, begin, end) ? last_below : nullptr;
  }

  // The upstream handed out [raw, raw + size) while the checker still holds
  // memory in it (a live or quarantined block): flag each such block and drop
  // its record (its memory now belongs to the new block). Runs before the new
  // record is written, so no old record is overwritten first.
  void forget_reissued(unsigned char* raw, std::size_t size, unsigned char* user,
                       std::size_t bytes) noexcept {
    const unsigned char* end = raw + size;
    while (block_header* old = live_block_overlapping(raw, end)) {
      remove(old);
      bytes_in_use_ -= old->bytes;
      react(misuse_kind::reissued_live_block, user, bytes, old->call_site);
    }
    for (std::size_t i = quarantined_; i-- > 0;) {
      if (!overlaps(quarantine_[i], raw, end)) continue;
      const char* old_site = quarantine_[i]->call_site;
      remove_from_quarantine(i);
      react(misuse_kind::reissued_live_block, user, bytes, old_site);
    }
  }

  static bool filled_with(const unsigned char* begin, std::size_t length,
                          unsigned char value) noexcept {
    for (std::size_t i = 0; i < length; ++i) {
      if (begin[i] != value) return false;
    }
    return true;
  }
  static const unsigned char* front_guard(const block_header* block) noexcept {
    return reinterpret_cast<const unsigned char*>(block) + sizeof(block_header);
  }
  static std::size_t front_guard_size(const block_header* block) noexcept {
    return block->shape.front - sizeof(block_header);
  }
  static bool underrun(const block_header* block) noexcept {
    return !filled_with(front_guard(block), front_guard_size(block), guard_byte);
  }
  static bool overrun(const block_header* block) noexcept {
    return !filled_with(block->user + block->bytes, guard_size, guard_byte);
  }
  static bool guards_damaged(const block_header* block) noexcept {
    return underrun(block) || overrun(block);
  }
  void note_guards(const block_header* block) noexcept {
    if (underrun(block)) record(misuse_kind::underrun, block->user, block->bytes, block->call_site);
    if (overrun(block)) record(misuse_kind::overrun, block->user, block->bytes, block->call_site);
  }

  // Records every misuse found on a block being freed; true when any.
  bool count_damage(const block_header* block, std::size_t bytes, std::size_t alignment) noexcept {
    bool found = false;
    auto note = [&](bool bad, misuse_kind kind) {
      if (!bad) return;
      record(kind, block->user, bytes, block->call_site);
      found = true;
    };
    note(bytes != block->bytes, misuse_kind::size_mismatch);
    note(alignment != block->alignment, misuse_kind::alignment_mismatch);
    if (!block->damage_reported) {
      note(underrun(block), misuse_kind::underrun);
      note(overrun(block), misuse_kind::overrun);
    }
    return found;
  }

  std::size_t quarantine_index(const unsigned char* user) const noexcept {
    for (std::size_t i = 0; i < quarantined_; ++i) {
      if (quarantine_[i]->user == user) return i;
    }
    return npos;
  }

  // Keeps `block` (already filled with freed_byte) until quarantine_limit_
  // later frees; index 0 is the oldest.
  void quarantine(block_header* block) noexcept {
    block->damage_reported = false;
    if (quarantine_limit_ == 0) return release_raw(block);
    if (quarantined_ == quarantine_limit_) evict_oldest();
    quarantine_[quarantined_++] = block;
  }

  void remove_from_quarantine(std::size_t index) noexcept {
    for (std::size_t i = index + 1; i < quarantined_; ++i) quarantine_[i - 1] = quarantine_[i];
    --quarantined_;
  }

  void evict_oldest() noexcept {
    block_header* oldest = quarantine_[0];
    remove_from_quarantine(0);
    if (!oldest->damage_reported && !filled_with(oldest->user, oldest->bytes, freed_byte)) {
      react(misuse_kind::write_after_free, oldest->user, oldest->bytes, oldest->call_site);
    }
    release_raw(oldest);
  }

  void release_raw(block_header* block) noexcept {
    const layout shape = block->shape;
    upstream_->deallocate(block, shape.raw_size, shape.raw_alignment);
  }

  void report_leaks(std::FILE* out) const noexcept {
    std::fprintf(out, "alloclab::checked_resource: %zu block(s), %zu byte(s) leaked\n",
                 live_blocks_, bytes_in_use_);
    std::size_t shown = 0;
    for_each_live([&](const block_header* block) {
      if (shown++ >= 8) return;
      std::fprintf(out, "  %zu byte(s) at %p, allocated at %s\n", block->bytes,
                   static_cast<const void*>(block->user),
                   block->call_site ? block->call_site : "(no call site)");
    });
  }

  void record(misuse_kind kind, const void* p, std::size_t bytes, const char* call_site) noexcept {
    ++misuse_counts_[static_cast<std::size_t>(kind)];
    std::snprintf(last_message_.data(), last_message_.size(),
                  "alloclab::checked_resource: %s at %p (%zu bytes, allocated at %s)",
                  to_string(kind), p, bytes, call_site ? call_site : "(no call site)");
    last_kind_ = kind;
  }

  void react(misuse_kind kind, const void* p, std::size_t bytes, const char* call_site) noexcept {
    record(kind, p, bytes, call_site);
    react_to_recorded();
  }

  // Abort now, or (throw mode) leave it for the next allocate.
  void react_to_recorded() noexcept {
    if (reaction_ == misuse_reaction::throw_exception) pending_ = true;
    if (reaction_ == misuse_reaction::abort) {
      std::fprintf(stderr, "%s\n", last_message_.data());
      std::abort();
    }
  }

  void raise_pending_misuse() {
    if (!pending_) return;
    pending_ = false;
    fail<misuse_error>("alloclab::checked_resource: misuse", last_kind_, last_message_.data());
  }

  std::pmr::memory_resource* upstream_;
  misuse_reaction reaction_;
  std::size_t quarantine_limit_;
  bool quiet_ = false;
  bool pending_ = false;
  const char* call_site_ = nullptr;
  block_header* live_ = nullptr;  // the treap's root
  std::array<block_header*, max_quarantine_blocks> quarantine_{};
  std::size_t quarantined_ = 0;
  std::array<std::size_t, misuse_kind_count> misuse_counts_{};
  std::array<char, 224> last_message_{};
  misuse_kind last_kind_ = misuse_kind::leak;
  std::size_t live_blocks_ = 0;
  std::size_t bytes_in_use_ = 0;
  std::size_t allocations_ = 0;
  std::size_t deallocations_ = 0;
};

}  // namespace alloclab
