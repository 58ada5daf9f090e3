// alloclab/huge_page_buffer.hpp: a 2 MiB-aligned anonymous mapping advised
// MADV_HUGEPAGE, that reports how much of it the kernel backed with huge pages.
//
// Transparent huge pages (THP) need a 2 MiB-aligned range, so the buffer maps
// more than asked and trims the excess, keeping one inaccessible guard page on
// each side (the kernel cannot merge the mapping with a neighbour, so its
// /proc/self/smaps entry is its own). The size is rounded up to 2 MiB. When
// THP is "never" or absent (/sys/kernel/mm/transparent_hugepage/enabled), or
// madvise refuses, the buffer is the same aligned mapping without the advice:
// `advised()` is false and `fallback_reason()` says why. `huge_backed_bytes()`
// reads the mapping's AnonHugePages from smaps: what the kernel actually did,
// which can be less than advised (fragmented memory, defrag settings).
//
// Example:
//   #include <alloclab/arena_resource.hpp>
//   #include <alloclab/huge_page_buffer.hpp>
//   #include <cstdint>
//   #include <cstdio>
//   #include <memory_resource>
//   #include <vector>
//
//   int main() {
//     alloclab::huge_page_buffer buffer{std::size_t{8} << 20};  // a long-lived 8 MiB table
//     if (!buffer.advised()) std::printf("no huge pages: %s\n", buffer.fallback_reason().c_str());
//     alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource()};
//     std::pmr::vector<std::uint64_t> table{std::size_t{1} << 19, &arena};  // 4 MiB, touched
//     const std::optional<std::size_t> huge = buffer.huge_backed_bytes();
//     std::printf("%zu of %zu bytes on huge pages\n", huge.value_or(0), buffer.size());
//     return huge && *huge <= buffer.size() && arena.upstream_allocations() == 0 ? 0 : 1;
//   }
//
// Move-only; not thread-safe (the memory itself is ordinary memory).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "detail/linux_files.hpp"
#include "failure.hpp"

namespace alloclab {

enum class thp_mode { always, madvise, never, unavailable };

inline const char* to_string(thp_mode mode) noexcept {
  switch (mode) {
    case thp_mode::always:
      return "always";
    case thp_mode::madvise:
      return "madvise";
    case thp_mode::never:
      return "never";
    case thp_mode::unavailable:
      return "unavailable";
  }
  return "unknown";
}

// The bracketed choice in a THP "enabled" file ("always [madvise] never");
// unavailable when the file is missing or has no known bracketed choice.
inline thp_mode read_thp_mode(
    const std::string& path = "/sys/kernel/mm/transparent_hugepage/enabled") {
  const std::optional<std::string> text = detail::read_small_file(path);
  if (!text) return thp_mode::unavailable;
  const auto open = text->find('[');
  const auto close = text->find(']', open);
  if (open == std::string::npos || close == std::string::npos) return thp_mode::unavailable;
  const std::string_view choice = std::string_view(*text).substr(open + 1, close - open - 1);
  if (choice == "always") return thp_mode::always;
  if (choice == "madvise") return thp_mode::madvise;
  if (choice == "never") return thp_mode::never;
  return thp_mode::unavailable;
}

struct huge_page_options {
  std::string thp_enabled_path = "/sys/kernel/mm/transparent_hugepage/enabled";
  std::string smaps_path = "/proc/self/smaps";
};

class huge_page_buffer {
 public:
  static constexpr std::size_t huge_page_size = std::size_t{2} << 20;

  // Maps `bytes` rounded up to 2 MiB. Throws std::invalid_argument for 0 and
  // std::bad_alloc when the kernel refuses the mapping.
  explicit huge_page_buffer(std::size_t bytes, huge_page_options options = {})
      : options_(std::move(options)), mode_(read_thp_mode(options_.thp_enabled_path)) {
    if (bytes == 0)
      fail<std::invalid_argument>("alloclab::huge_page_buffer: size 0",
                                  "alloclab::huge_page_buffer: size 0");
    if (bytes > SIZE_MAX / 2) fail<std::bad_alloc>("alloclab::huge_page_buffer: size overflows");
    size_ = (bytes + huge_page_size - 1) & ~(huge_page_size - 1);
    map_aligned();
    advise();
  }

  huge_page_buffer(huge_page_buffer&& other) noexcept { swap(other); }
  huge_page_buffer& operator=(huge_page_buffer&& other) noexcept {
    huge_page_buffer(std::move(other)).swap(*this);
    return *this;
  }
  huge_page_buffer(const huge_page_buffer&) = delete;
  huge_page_buffer& operator=(const huge_page_buffer&) = delete;
  ~huge_page_buffer() {
    if (data_) ::munmap(data_ - guard_size(), size_ + 2 * guard_size());
  }

  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  thp_mode mode() const noexcept { return mode_; }
  // True when MADV_HUGEPAGE was applied; otherwise fallback_reason() says why not.
  bool advised() const noexcept { return advised_; }
  const std::string& fallback_reason() const noexcept { return fallback_reason_; }

  // Writes one byte per base page, so the faults (and huge page allocation)
  // happen now rather than on first use.
  void populate() noexcept {
    const auto page = guard_size();
    for (std::size_t offset = 0; offset < size_; offset += page)
      static_cast<volatile std::byte*>(static_cast<void*>(data_))[offset] = std::byte{0};
  }

  // Bytes of this mapping on huge pages (smaps AnonHugePages), and resident
  // (smaps Rss); nullopt when smaps cannot be read.
  std::optional<std::size_t> huge_backed_bytes() const { return smaps_kilobytes("AnonHugePages:"); }
  std::optional<std::size_t> resident_bytes() const { return smaps_kilobytes("Rss:"); }

 private:
  static std::size_t guard_size() noexcept {
    return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  }

  void swap(huge_page_buffer& other) noexcept {
    std::swap(options_, other.options_);
    std::swap(mode_, other.mode_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(advised_, other.advised_);
    std::swap(fallback_reason_, other.fallback_reason_);
  }

  // guard | size_ bytes, 2 MiB-aligned | guard; the rest of the reservation is unmapped.
  void map_aligned() {
    const std::size_t guard = guard_size();
    const std::size_t reserved = size_ + huge_page_size + 2 * guard;
    void* raw = ::mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) fail<std::bad_alloc>("alloclab::huge_page_buffer: mmap refused");
    auto* const first = static_cast<std::byte*>(raw);
    const auto start = reinterpret_cast<std::uintptr_t>(first) + guard;
    const std::uintptr_t aligned_start = (start + huge_page_size - 1) & ~(huge_page_size - 1);
    std::byte* const aligned = first + (aligned_start - reinterpret_cast<std::uintptr_t>(first));
    std::byte* const keep_begin = aligned - guard;
    std::byte* const keep_end = aligned + size_ + guard;
    if (keep_begin > first) ::munmap(first, static_cast<std::size_t>(keep_begin - first));
    if (first + reserved > keep_end)
      ::munmap(keep_end, static_cast<std::size_t>(first + reserved - keep_end));
    if (::mprotect(aligned, size_, PROT_READ | PROT_WRITE) != 0) {
      ::munmap(keep_begin, size_ + 2 * guard);
      fail<std::bad_alloc>("alloclab::huge_page_buffer: mprotect refused");
    }
    data_ = aligned;
  }

  void advise() {
    if (mode_ == thp_mode::never || mode_ == thp_mode::unavailable) {
      fallback_reason_ = std::string("transparent huge pages are ") + to_string(mode_) + " (" +
                         options_.thp_enabled_path + "); plain pages";
      return;
    }
    if (::madvise(data_, size_, MADV_HUGEPAGE) != 0) {
      fallback_reason_ =
          std::string("madvise(MADV_HUGEPAGE) failed: ") + std::strerror(errno) + "; plain pages";
      return;
    }
    advised_ = true;
  }

  // Sums `field` (in kB) over the smaps entries inside this buffer.
  std::optional<std::size_t> smaps_kilobytes(std::string_view field) const {
    std::ifstream smaps(options_.smaps_path);
    if (!smaps) return std::nullopt;
    const auto begin = reinterpret_cast<std::uintptr_t>(data_);
    const std::uintptr_t end = begin + size_;
    bool inside = false;
    std::size_t kilobytes = 0;
    for (std::string line; std::getline(smaps, line);) {
      if (starts_mapping(line)) {
        const auto [low, high] = mapping_range(line);
        inside = low >= begin && high <= end && low < high;
      } else if (inside && line.compare(0, field.size(), field) == 0) {
        std::string_view value = std::string_view(line).substr(field.size());
        value = detail::trim_whitespace(value);
        if (value.size() > 2 && value.substr(value.size() - 2) == "kB") value.remove_suffix(2);
        kilobytes += static_cast<std::size_t>(detail::parse_decimal(value).value_or(0));
      }
    }
    return kilobytes * 1024;
  }

  // An entry's first line ("7f00-7f20 rw-p ...") starts with a lowercase hex
  // digit; its field lines ("Rss: ...") start with an upper-case letter.
  static bool starts_mapping(const std::string& line) noexcept {
    return !line.empty() &&
           ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f'));
  }

  static std::pair<std::uintptr_t, std::uintptr_t> mapping_range(const std::string& line) noexcept {
    std::uintptr_t low = 0, high = 0;
    const char* const stop = line.data() + line.size();
    const auto dash = std::from_chars(line.data(), stop, low, 16);
    if (dash.ec != std::errc() || dash.ptr == stop || *dash.ptr != '-') return {0, 0};
    if (std::from_chars(dash.ptr + 1, stop, high, 16).ec != std::errc()) return {0, 0};
    return {low, high};
  }

  huge_page_options options_;
  thp_mode mode_ = thp_mode::unavailable;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool advised_ = false;
  std::string fallback_reason_;
};

}  // namespace alloclab
