#include <cstdlib>

#include <gtest/gtest.h>

#include "measure/build_guard.hpp"

namespace alloclab::lab {
namespace {

build_facts facts(bool optimized, bool assertions, bool sanitized = false) {
  build_facts f;
  f.optimized = optimized;
  f.assertions = assertions;
  f.sanitized = sanitized;
  return f;
}

TEST(BuildGuard, OnlyAnOptimisedBuildWithoutAssertionsPublishes) {
  EXPECT_EQ(judge_build(facts(true, false), false), build_verdict::publish);
  EXPECT_EQ(judge_build(facts(false, false), false), build_verdict::refuse);
  EXPECT_EQ(judge_build(facts(true, true), false), build_verdict::refuse);
  EXPECT_EQ(judge_build(facts(true, false, true), false), build_verdict::refuse);
}

TEST(BuildGuard, AllowDebugRunsButStampsTheOutput) {
  EXPECT_EQ(judge_build(facts(false, true), true), build_verdict::stamp_debug);
  EXPECT_EQ(judge_build(facts(true, false), true), build_verdict::publish);
}

TEST(BuildGuard, PretendDebugEnvironmentVariableMakesTheBuildUnready) {
  ::setenv("ALLOCLAB_LAB_PRETEND_DEBUG", "1", 1);
  const build_facts pretended = current_build();
  ::unsetenv("ALLOCLAB_LAB_PRETEND_DEBUG");
  EXPECT_FALSE(pretended.benchmark_ready());
  EXPECT_EQ(judge_build(pretended, false), build_verdict::refuse);
}

}  // namespace
}  // namespace alloclab::lab
