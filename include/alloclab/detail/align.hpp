// alloclab/detail/align.hpp: alignment and overflow-checked size arithmetic
// shared by the resources. Private: not part of the public interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "../failure.hpp"

namespace alloclab::detail {

inline constexpr bool is_power_of_two(std::size_t value) noexcept {
  return value != 0 && (value & (value - 1)) == 0;
}

// Rounds `value` up to a multiple of the power of two `alignment`; sets
// `overflow` instead of wrapping.
inline constexpr std::size_t align_up(std::size_t value, std::size_t alignment,
                                      bool& overflow) noexcept {
  const std::size_t mask = alignment - 1;
  overflow = value > SIZE_MAX - mask;
  return (value + mask) & ~mask;
}

inline std::uintptr_t address_of(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p);
}

inline bool is_aligned(const void* p, std::size_t alignment) noexcept {
  return (address_of(p) & (alignment - 1)) == 0;
}

// Bytes to add to `p` so that it is aligned to `alignment`.
inline std::size_t padding_for(const void* p, std::size_t alignment) noexcept {
  return static_cast<std::size_t>(-address_of(p)) & (alignment - 1);
}

// Throws std::bad_alloc for an alignment no resource can honour; the
// standard leaves it undefined, alloclab makes it loud.
inline void require_valid_alignment(std::size_t alignment) {
  if (!is_power_of_two(alignment)) fail<std::bad_alloc>("alloclab: alignment not a power of two");
}

// a + b, or std::bad_alloc when it would wrap.
inline std::size_t checked_add(std::size_t a, std::size_t b) {
  if (a > SIZE_MAX - b) fail<std::bad_alloc>("alloclab: size overflows");
  return a + b;
}

}  // namespace alloclab::detail
