// Test plan: build_info, what a binary says about how it was built (also run under the tsan
// preset).
//
// | member                                     | test case                                 |
// |--------------------------------------------|-------------------------------------------|
// | address_sanitizer, thread_sanitizer,       | every_sanitizer_the_compiler_reports_counts |
// | sanitized, benchmark_ready                 |                                           |
// | optimized, assertions, describe()          | describe_names_what_stops_a_benchmark     |
#include <alloclab/build_info.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

namespace build = alloclab::build;

// What the compiler itself announces, checked apart from build_info's own logic.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool compiler_says_asan = true;
#else
constexpr bool compiler_says_asan = false;
#endif
#if defined(__SANITIZE_THREAD__)
constexpr bool compiler_says_tsan = true;
#else
constexpr bool compiler_says_tsan = false;
#endif

TEST(build_info, every_sanitizer_the_compiler_reports_counts) {
  if (compiler_says_asan) {
    EXPECT_TRUE(build::address_sanitizer);
  }
  if (compiler_says_tsan) {
    EXPECT_TRUE(build::thread_sanitizer);
  }
  if (compiler_says_asan || compiler_says_tsan) {
    EXPECT_TRUE(build::sanitized);
    EXPECT_FALSE(build::benchmark_ready);  // a TSan build once passed as benchmark-ready
  }
  EXPECT_EQ(build::sanitized,
            build::address_sanitizer || build::thread_sanitizer || build::undefined_sanitizer);
}

TEST(build_info, describe_names_what_stops_a_benchmark) {
  const std::string text = build::describe();
  if (build::benchmark_ready) {
    EXPECT_EQ(text, "optimised, assertions off, no sanitizers");
    return;
  }
  EXPECT_NE(text.find("timings are"), std::string::npos) << text;  // says why it is not ready
  if (!build::optimized) {
    EXPECT_NE(text.find("NOT optimised"), std::string::npos) << text;
  } else if (build::sanitized) {
    EXPECT_NE(text.find("sanitizers on"), std::string::npos) << text;
  } else {
    EXPECT_NE(text.find("assertions on"), std::string::npos) << text;
  }
}

}  // namespace
