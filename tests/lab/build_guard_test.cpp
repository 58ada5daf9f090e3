#include <cstdlib>

#include <gtest/gtest.h>

#include <alloclab/build_info.hpp>

#include "measure/build_guard.hpp"
#include "process/hooks.hpp"
#include "../support/scoped_env.hpp"

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

// The seam the CLI tests use to exercise the refusal from a Release build (process/hooks.hpp).
TEST(BuildGuard, PretendDebugHookMakesTheBuildUnready) {
  process_hooks hooks;
  hooks.pretend_debug = [] { return true; };
  install_process_hooks(hooks);
  const build_facts pretended = current_build();
  install_process_hooks({});
  EXPECT_FALSE(pretended.benchmark_ready());
  EXPECT_EQ(judge_build(pretended, false), build_verdict::refuse);
  EXPECT_EQ(judge_build(pretended, true), build_verdict::stamp_debug);
}

// Without a hook the facts are the compiled ones, whatever the environment says: the production
// binary reads no test setting.
TEST(BuildGuard, WithoutAHookTheFactsAreTheCompiledOnes) {
  const build_facts facts = [] {
    const test::scoped_env pretend("ALLOCLAB_TEST_PRETEND_DEBUG", "1");
    return current_build();
  }();
  EXPECT_EQ(facts.optimized, alloclab::build::optimized);
  EXPECT_EQ(facts.assertions, alloclab::build::assertions);
  EXPECT_EQ(facts.sanitized, alloclab::build::sanitized);
}

}  // namespace
}  // namespace alloclab::lab
