// alloclab/build_info.hpp: tells, at compile time, how the including
// translation unit was built, so a benchmark can refuse to publish numbers
// from an unoptimised or assertion-laden build (seed 000, bug 2).
//
// Example:
//   #include <alloclab/build_info.hpp>
//   #include <cstdio>
//
//   int main() {
//     // A benchmark's first lines: say how it was built, refuse if it matters.
//     std::printf("build: %s\n", alloclab::build::describe());
//     const bool consistent = alloclab::build::benchmark_ready ==
//         (alloclab::build::optimized && !alloclab::build::assertions && !alloclab::build::sanitized);
//     return consistent ? 0 : 1;
//   }
//
// The answer is per translation unit: it reflects the flags of the file that
// includes this header, which is exactly the code whose speed is measured.
#pragma once

namespace alloclab::build {

#if defined(__OPTIMIZE__)
inline constexpr bool optimized = true;
#else
inline constexpr bool optimized = false;
#endif

#if defined(NDEBUG)
inline constexpr bool assertions = false;
#else
inline constexpr bool assertions = true;
#endif

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool address_sanitizer = true;
#else
inline constexpr bool address_sanitizer = false;
#endif
#else
inline constexpr bool address_sanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool thread_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool thread_sanitizer = true;
#else
inline constexpr bool thread_sanitizer = false;
#endif
#else
inline constexpr bool thread_sanitizer = false;
#endif

// clang says when UBSan alone is on; gcc does not (its sanitize preset pairs UBSan with ASan).
#if defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
inline constexpr bool undefined_sanitizer = true;
#else
inline constexpr bool undefined_sanitizer = false;
#endif
#else
inline constexpr bool undefined_sanitizer = false;
#endif

// Any sanitizer: its run-time owns or slows malloc, so timings mean nothing.
inline constexpr bool sanitized = address_sanitizer || thread_sanitizer || undefined_sanitizer;

// True when timings from this translation unit mean something.
inline constexpr bool benchmark_ready = optimized && !assertions && !sanitized;

// One line such as "optimised, assertions off, no sanitizers".
inline constexpr const char* describe() noexcept {
  if (benchmark_ready) return "optimised, assertions off, no sanitizers";
  if (!optimized) return "NOT optimised (-O0): timings are meaningless";
  if (sanitized) return "sanitizers on: timings are meaningless";
  return "assertions on (NDEBUG not defined): timings are pessimistic";
}

}  // namespace alloclab::build
