// alloclab/checked_resource.hpp: a test adaptor that catches allocator misuse
// without undefined behaviour, in the spirit of BDE's bslma::TestAllocator.
//
// Every block is recorded with its size and alignment and surrounded by guard
// bytes (the returned pointer keeps the requested alignment). The resource
// detects, counts and reports:
//
// | misuse                | detected when                                        |
// |-----------------------|------------------------------------------------------|
// | `leak`                | blocks are still live at destruction (or `check_no_leaks`) |
// | `double_free`         | a pointer is deallocated after it was already freed  |
// | `unknown_pointer`     | a pointer this resource never handed out is freed    |
// | `size_mismatch`       | deallocate names a size other than the allocation's  |
// | `alignment_mismatch`  | deallocate names another alignment                   |
// | `underrun`, `overrun` | the guard bytes before or after a block were written |
//
// A double or unknown free is never forwarded upstream; a mismatched free
// is completed with the recorded size and alignment. The reaction to a misuse
// is `record` (count it), `throw_exception` (`misuse_error`, after the
// bookkeeping is consistent) or `abort`. Fresh blocks are filled with 0xA5
// and freed ones with 0xDD, so reads of uninitialised or freed memory show.
//
// Example:
//   #include <alloclab/checked_resource.hpp>
//
//   int main() {
//     alloclab::checked_resource checker;  // reaction: record
//     void* p = checker.allocate(32, 8);
//     checker.deallocate(p, 16, 8);        // wrong size: detected, still freed
//     checker.deallocate(p, 32, 8);        // double free: detected, not forwarded
//     using kind = alloclab::misuse_kind;
//     return checker.misuse_count(kind::size_mismatch) == 1 &&
//                    checker.misuse_count(kind::double_free) == 1 && checker.blocks_in_use() == 0
//                ? 0
//                : 1;
//   }
//
// Not thread-safe. Bookkeeping uses the global heap, never the upstream.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory_resource>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"

namespace alloclab {

enum class misuse_kind {
  leak,
  double_free,
  unknown_pointer,
  size_mismatch,
  alignment_mismatch,
  underrun,
  overrun,
};
inline constexpr std::size_t misuse_kind_count = 7;

inline constexpr const char* to_string(misuse_kind kind) noexcept {
  constexpr const char* names[misuse_kind_count] = {
      "leak",     "double_free", "unknown_pointer", "size_mismatch", "alignment_mismatch",
      "underrun", "overrun"};
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

  explicit checked_resource(std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
                            misuse_reaction reaction = misuse_reaction::record)
      : upstream_(upstream), reaction_(reaction) {}
  checked_resource(const checked_resource&) = delete;
  checked_resource& operator=(const checked_resource&) = delete;

  // Reports leaks (to stderr unless quiet) and returns leaked blocks upstream.
  ~checked_resource() override {
    if (!live_.empty()) {
      if (!quiet_) {
        std::fprintf(stderr, "alloclab::checked_resource: %zu block(s), %zu byte(s) leaked\n",
                     live_.size(), bytes_in_use_);
      }
      if (reaction_ == misuse_reaction::abort) std::abort();
    }
    for (const auto& [user, block] : live_) release_raw(user, block);
  }

  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    detail::require_valid_alignment(alignment);
    const layout shape = layout_for(bytes, alignment);
    auto* raw =
        static_cast<unsigned char*>(upstream_->allocate(shape.raw_size, shape.raw_alignment));
    unsigned char* user = raw + shape.front;
    std::memset(raw, guard_byte, shape.front);
    std::memset(user, fresh_byte, bytes);
    std::memset(user + bytes, guard_byte, guard_size);
    try {
      live_.emplace(user, block_record{bytes, alignment, shape});
      freed_.erase(user);
    } catch (...) {
      upstream_->deallocate(raw, shape.raw_size, shape.raw_alignment);
      throw;
    }
    ++allocations_;
    bytes_in_use_ += bytes;
    return user;
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    auto* user = static_cast<unsigned char*>(p);
    const auto found = live_.find(user);
    if (found == live_.end()) {
      const bool freed_before = freed_.count(user) != 0;
      react(freed_before ? misuse_kind::double_free : misuse_kind::unknown_pointer, p, bytes);
      return;
    }
    const block_record block = found->second;
    live_.erase(found);
    freed_.insert(user);
    bytes_in_use_ -= block.bytes;
    ++deallocations_;
    const std::size_t pending = count_damage(user, block, bytes, alignment);
    release_raw(user, block);
    if (pending != 0) throw_or_abort_if_configured();
  }

  std::size_t misuse_count(misuse_kind kind) const noexcept {
    return misuse_counts_[static_cast<std::size_t>(kind)];
  }
  std::size_t total_misuses() const noexcept {
    std::size_t total = 0;
    for (std::size_t count : misuse_counts_) total += count;
    return total;
  }
  const std::string& last_misuse() const noexcept { return last_message_; }

  std::size_t blocks_in_use() const noexcept { return live_.size(); }
  std::size_t bytes_in_use() const noexcept { return bytes_in_use_; }
  std::size_t allocations() const noexcept { return allocations_; }
  std::size_t deallocations() const noexcept { return deallocations_; }

  // Counts live blocks as leaks now (for a test's end); true when none.
  bool check_no_leaks() {
    if (live_.empty()) return true;
    misuse_counts_[static_cast<std::size_t>(misuse_kind::leak)] += live_.size();
    last_message_ = std::to_string(live_.size()) + " block(s), " + std::to_string(bytes_in_use_) +
                    " byte(s) still in use";
    return false;
  }

  // Silences the destructor's leak message (for tests that leak on purpose).
  void set_quiet(bool quiet) noexcept { quiet_ = quiet; }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }

 private:
  struct layout {
    std::size_t front;  // bytes from the raw block to the user pointer
    std::size_t raw_size;
    std::size_t raw_alignment;
  };
  struct block_record {
    std::size_t bytes;
    std::size_t alignment;
    layout shape;
  };

  static layout layout_for(std::size_t bytes, std::size_t alignment) {
    const std::size_t raw_alignment =
        alignment > alignof(std::max_align_t) ? alignment : alignof(std::max_align_t);
    const std::size_t front = guard_size > raw_alignment ? guard_size : raw_alignment;
    const std::size_t raw_size = detail::checked_add(detail::checked_add(front, bytes), guard_size);
    return {front, raw_size, raw_alignment};
  }

  static bool guard_intact(const unsigned char* begin, std::size_t length) noexcept {
    for (std::size_t i = 0; i < length; ++i) {
      if (begin[i] != guard_byte) return false;
    }
    return true;
  }

  // Records every misuse found on a live block; returns how many.
  std::size_t count_damage(unsigned char* user, const block_record& block, std::size_t bytes,
                           std::size_t alignment) {
    std::size_t found = 0;
    auto note = [&](bool bad, misuse_kind kind) {
      if (!bad) return;
      record(kind, user, bytes);
      ++found;
    };
    note(bytes != block.bytes, misuse_kind::size_mismatch);
    note(alignment != block.alignment, misuse_kind::alignment_mismatch);
    note(!guard_intact(user - block.shape.front, block.shape.front), misuse_kind::underrun);
    note(!guard_intact(user + block.bytes, guard_size), misuse_kind::overrun);
    return found;
  }

  void release_raw(unsigned char* user, const block_record& block) noexcept {
    std::memset(user, freed_byte, block.bytes);
    upstream_->deallocate(user - block.shape.front, block.shape.raw_size,
                          block.shape.raw_alignment);
  }

  void record(misuse_kind kind, const void* p, std::size_t bytes) {
    ++misuse_counts_[static_cast<std::size_t>(kind)];
    char text[160];
    std::snprintf(text, sizeof text, "alloclab::checked_resource: %s at %p (%zu bytes)",
                  to_string(kind), p, bytes);
    last_message_ = text;
    last_kind_ = kind;
  }

  void react(misuse_kind kind, const void* p, std::size_t bytes) {
    record(kind, p, bytes);
    throw_or_abort_if_configured();
  }

  void throw_or_abort_if_configured() {
    if (reaction_ == misuse_reaction::throw_exception)
      throw misuse_error(last_kind_, last_message_);
    if (reaction_ == misuse_reaction::abort) {
      std::fprintf(stderr, "%s\n", last_message_.c_str());
      std::abort();
    }
  }

  std::pmr::memory_resource* upstream_;
  misuse_reaction reaction_;
  bool quiet_ = false;
  std::unordered_map<unsigned char*, block_record> live_;
  std::unordered_set<unsigned char*> freed_;
  std::array<std::size_t, misuse_kind_count> misuse_counts_{};
  std::string last_message_;
  misuse_kind last_kind_ = misuse_kind::leak;
  std::size_t bytes_in_use_ = 0;
  std::size_t allocations_ = 0;
  std::size_t deallocations_ = 0;
};

}  // namespace alloclab
