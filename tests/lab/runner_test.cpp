#include <type_traits>

#include <gtest/gtest.h>

#include "frames/batch/runner.hpp"
#include "workloads/workload.hpp"
#include "run_support.hpp"

namespace alloclab::lab {
namespace {
using run_support::ignore_progress;

// A deliberately broken workload: it builds different data under std::allocator than under
// any other allocator, which the runner must refuse to report.
struct test_divergent_checksum {
  static constexpr const char* name = "test_divergent_checksum";
  static constexpr const char* description = "test only: result depends on the allocator";
  struct input {
    int size;
  };
  static input make_input(std::uint64_t) { return input{8}; }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto v = policy.template make_vector<int>();
    for (int i = 0; i < in.size; ++i) v.push_back(i);
    return v.size() + (std::is_same_v<Policy, std_policy> ? 0u : 1u);
  }
};
LAB_REGISTER_WORKLOAD(test_divergent_checksum);

run_config small_config(std::vector<std::string> workloads, std::vector<std::string> strategies) {
  run_config config;
  config.workloads = std::move(workloads);
  config.strategies = std::move(strategies);
  config.samples_per_repetition = 5;
  config.repetitions = 2;
  config.counted_iterations = 4;
  return config;
}

const cell_measurement& run_cell_of(const run_measurement& run, const std::string& strategy) {
  for (const auto& c : run.workloads.at(0).cells)
    if (c.strategy == strategy) return c;
  throw std::runtime_error("no cell " + strategy);
}

TEST(Runner, DivergentChecksumsFailTheRunLoudly) {
  const run_config config = small_config({"test_divergent_checksum"}, {"std", "pmr_new_delete"});
  EXPECT_THROW(run_suite(config, ignore_progress), checksum_mismatch);
}

TEST(Runner, AgreeingStrategiesShareOneChecksum) {
  const run_measurement run =
      run_suite(small_config({"trade_batch"}, {"std", "pmr_monotonic", "alloclab_arena_static"}),
                ignore_progress);
  const auto& w = run.workloads.at(0);
  EXPECT_NE(w.checksum, 0u);
  for (const auto& c : w.cells) {
    EXPECT_EQ(c.status, cell_status::ok) << c.strategy << ": " << c.reason;
    EXPECT_EQ(c.checksum, w.checksum) << c.strategy;
    EXPECT_EQ(c.repetition_medians_ns.size(), 2u);
  }
}

TEST(Runner, EveryTimedRepetitionHasAReferenceReadingOnEachSide) {
  const run_measurement run =
      run_suite(small_config({"vector_push"}, {"std", "alloclab_pool"}), ignore_progress);
  const cell_measurement& timed = run_cell_of(run, "std");
  ASSERT_EQ(timed.repetition_medians_ns.size(), 2u);
  EXPECT_EQ(timed.repetition_reference_before_ns.size(), 2u);
  EXPECT_EQ(timed.repetition_reference_after_ns.size(), 2u);
  EXPECT_EQ(timed.repetition_memory_reference_before_ns.size(), 2u);
  EXPECT_EQ(timed.repetition_memory_reference_after_ns.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_GT(timed.repetition_reference_before_ns[i], 0.0) << i;
    EXPECT_GT(timed.repetition_reference_after_ns[i], 0.0) << i;
    EXPECT_GT(timed.repetition_memory_reference_before_ns[i], 0.0) << i;
    EXPECT_GT(timed.repetition_memory_reference_after_ns[i], 0.0) << i;
  }
  const cell_measurement& untimed = run_cell_of(run, "alloclab_pool");  // not applicable
  EXPECT_TRUE(untimed.repetition_reference_before_ns.empty());
  EXPECT_TRUE(untimed.repetition_reference_after_ns.empty());
}

TEST(Runner, ArenasAreSizedFromTrackingAndNeverTouchTheHeap) {
  const run_measurement run =
      run_suite(small_config({"map_string"}, {"std", "pmr_monotonic", "alloclab_arena",
                                              "alloclab_arena_static", "alloclab_pool"}),
                ignore_progress);
  EXPECT_EQ(run_cell_of(run, "std").heap_allocations_per_iteration,
            1000.0);  // 500 nodes + 500 heap-sized keys
  for (const char* arena :
       {"pmr_monotonic", "alloclab_arena", "alloclab_arena_static", "alloclab_pool"}) {
    const cell_measurement& c = run_cell_of(run, arena);
    EXPECT_EQ(c.status, cell_status::ok) << arena << ": " << c.reason;
    EXPECT_EQ(c.heap_allocations_per_iteration, 0.0) << arena;
    EXPECT_EQ(c.upstream_fallbacks_per_iteration, 0.0) << arena;
    EXPECT_GE(c.buffer_bytes, run.workloads[0].footprint.peak_bytes) << arena;
  }
  EXPECT_GE(run.workloads[0].footprint.suggested_arena_bytes,
            run.workloads[0].footprint.monotonic_footprint);
}

TEST(Runner, UndersizedBufferReportsItsFallbacksAsAWarning) {
  const run_measurement run = run_suite(
      small_config({"vector_push"}, {"std", "pmr_monotonic_undersized"}), ignore_progress);
  const cell_measurement& c = run_cell_of(run, "pmr_monotonic_undersized");
  EXPECT_EQ(c.status, cell_status::ok);
  EXPECT_GT(c.upstream_fallbacks_per_iteration, 0.0);
  EXPECT_FALSE(c.warning.empty());
  EXPECT_FALSE(c.samples_ns.empty());
}

TEST(Runner, NodePoolIsNotApplicableToLargeRequests) {
  const run_measurement run =
      run_suite(small_config({"vector_push"}, {"std", "alloclab_pool"}), ignore_progress);
  const cell_measurement& c = run_cell_of(run, "alloclab_pool");
  EXPECT_EQ(c.status, cell_status::not_applicable);
  EXPECT_FALSE(c.reason.empty());
  EXPECT_TRUE(c.samples_ns.empty());
}

}  // namespace
}  // namespace alloclab::lab
