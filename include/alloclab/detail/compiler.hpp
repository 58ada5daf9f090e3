// alloclab/detail/compiler.hpp: the one place alloclab uses compiler
// builtins, each with a portable fallback. Private: not part of the interface.
//
// | name                       | GCC / Clang                   | elsewhere             |
// |----------------------------|-------------------------------|-----------------------|
// | ALLOCLAB_LIKELY(c)         | __builtin_expect(!!(c), 1)    | (c)                   |
// | floor_log2(v), v != 0      | __builtin_clz / clzl / clzll  | a shift loop (constexpr) |
// | spin_pause()               | x86 `pause`, ARM `yield`      | nothing               |
#pragma once

#include <climits>
#include <cstddef>

#if defined(__GNUC__) || defined(__clang__)
#define ALLOCLAB_LIKELY(condition) __builtin_expect(!!(condition), 1)
#define ALLOCLAB_HAS_CLZ 1
#else
#define ALLOCLAB_LIKELY(condition) (condition)
#define ALLOCLAB_HAS_CLZ 0
#endif

namespace alloclab::detail {

// Index of the highest set bit of `value` (which must not be 0), without builtins.
inline constexpr unsigned floor_log2_portable(std::size_t value) noexcept {
  unsigned log = 0;
  for (unsigned step = sizeof(std::size_t) * CHAR_BIT / 2; step != 0; step /= 2) {
    if (value >> step) {
      value >>= step;
      log += step;
    }
  }
  return log;
}

// The same with one count-leading-zeros instruction where the compiler has it.
inline constexpr unsigned floor_log2(std::size_t value) noexcept {
#if ALLOCLAB_HAS_CLZ
  constexpr unsigned top_bit = sizeof(std::size_t) * CHAR_BIT - 1;
  if constexpr (sizeof(std::size_t) == sizeof(unsigned))
    return top_bit - static_cast<unsigned>(__builtin_clz(static_cast<unsigned>(value)));
  else if constexpr (sizeof(std::size_t) == sizeof(unsigned long))
    return top_bit - static_cast<unsigned>(__builtin_clzl(static_cast<unsigned long>(value)));
  else
    return top_bit - static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(value)));
#else
  return floor_log2_portable(value);
#endif
}

// Tells the core a spin-wait is in progress (cheaper for a hyper-thread sibling).
inline void spin_pause() noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7))
  __asm__ __volatile__("yield");
#endif
}

}  // namespace alloclab::detail
