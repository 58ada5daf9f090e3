// Test plan: results/results_builder's comparisons (add_comparisons) on hand-made cells.
//   a heap-study cell's pair-cost ratio against the baseline malloc carries its bootstrap
//     interval, and a lab cell has none (HeapCellsCompareTheirPairCostWithAnInterval);
//   the document's skeleton (config, environment, timer, significance, noise, budget, shard) is
//     built as the results model and written by its one to_json: what build_results returns reads
//     back into the model with every key and value, writes again identically and is valid against
//     the generated schema; a frame that did not run has no settings in `config`
//     (TheSkeletonIsTheModelsOwnJson).
#include <gtest/gtest.h>

#include "model_agreement.hpp"
#include "results/results_builder.hpp"
#include "frames/memory/run_options.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json timed(const std::string& malloc, double ns, json ns_per_pair) {
  const std::vector<double> medians = {ns * 0.99, ns, ns * 1.01, ns, ns};
  return {{"strategy", "malloc"},
          {"malloc", malloc},
          {"status", "ok"},
          {"timing",
           {{"p50_ns", ns},
            {"mean_ns", ns},
            {"p99_ns", 2 * ns},
            {"jitter_ns", ns},
            {"cv", 0.1},
            {"repetition_medians_ns", medians},
            {"repetition_means_ns", medians}}},
          {"ns_per_pair", std::move(ns_per_pair)}};
}

json pairs(double mean) {
  return {{"mean", mean},
          {"per_repetition", {mean * 0.98, mean, mean * 1.02, mean * 0.99, mean * 1.01}}};
}

TEST(ResultsBuilder, HeapCellsCompareTheirPairCostWithAnInterval) {
  json heap = {{"baseline", {{"strategy", "malloc"}, {"malloc", "glibc"}}},
               {"cells", json::array({timed("glibc", 1000, pairs(100)),
                                      timed("jemalloc", 500, pairs(50))})}};
  add_comparisons(heap, true);
  const json& vs = heap["cells"][1]["vs_std"];
  ASSERT_TRUE(vs.is_object());
  EXPECT_NEAR(vs.at("speedup_ns_per_pair").get<double>(), 2.0, 1e-9);
  const json& range = vs.at("intervals").at("speedup_ns_per_pair");
  ASSERT_TRUE(range.is_object()) << vs;
  // Every resample of glibc's per-repetition costs over jemalloc's lies in [0.98/1.02, 1.02/0.98] × 2.
  EXPECT_GE(range["low"].get<double>(), 2 * 0.98 / 1.02);
  EXPECT_LE(range["high"].get<double>(), 2 * 1.02 / 0.98);
  EXPECT_LE(range["low"].get<double>(), 2.0);
  EXPECT_GE(range["high"].get<double>(), 2.0);

  json lab = {
      {"baseline", {{"strategy", "malloc"}, {"malloc", "glibc"}}},
      {"cells", json::array({timed("glibc", 1000, nullptr), timed("jemalloc", 500, nullptr)})}};
  add_comparisons(lab, true);
  EXPECT_FALSE(lab["cells"][1]["vs_std"].contains("speedup_ns_per_pair"));
}

run_plan empty_plan() {
  run_plan plan;
  plan.sizes.quick = true;
  plan.sizes.samples_per_repetition = 10;
  plan.sizes.repetitions = 5;
  // No lab workload: config.repetitions is the memory frame's.
  plan.frame_sizes.put("memory", memory_plan_sizes{5, {}, 0});
  plan.sizes.processes = 2;
  plan.placement_twin = "glibc_nocliff";
  return plan;
}

TEST(ResultsBuilder, TheSkeletonIsTheModelsOwnJson) {
  const run_plan plan = empty_plan();
  run_records run;
  run.duration_seconds = 1.5;
  budget_account account;
  account.mode = "fixed";
  account.stopped = "the fixed plan ran";
  account.rounds.push_back({1, 4, 1.25, 0, 0});
  run.budget = account;
  results_context context;
  context.command_line = "alloclab run --quick";
  context.created_utc = "2026-11-27T12:00:00Z";
  context.shard = {{"index", 1},
                   {"count", 2},
                   {"cells", 0},
                   {"plan_cells", 0},
                   {"source", "plan"},
                   {"costs", "expected"},
                   {"workloads", json::array()}};
  const json built = build_results(plan, run, context);

  model_agreement::expect_model_agrees(built, "a built skeleton");
  const json again = model::to_json(model::from_json(built));
  EXPECT_EQ(model::to_json(model::from_json(again)), again);
  EXPECT_EQ(built.at("schema_version"), results_schema_version);
  EXPECT_EQ(built.at("config").at("processes"), 2);
  EXPECT_EQ(built.at("config").at("placement_twin"), "glibc_nocliff");
  EXPECT_TRUE(built.at("noise").is_null());
  EXPECT_FALSE(built.at("config").contains("heap")) << "no heap workload ran";
  const json& budget = built.at("budget");
  EXPECT_EQ(budget.at("mode"), "fixed");
  EXPECT_EQ(budget.at("rounds").at(0).at("elapsed_seconds"), 1.25);
  EXPECT_TRUE(budget.at("planned_after_first_round").is_null());
  EXPECT_EQ(budget.at("spread"), json::array());
  EXPECT_EQ(built.at("shard").at("count"), 2);
  EXPECT_EQ(built.at("significance").at("enough_repetitions"), test_has_power(5));
  EXPECT_EQ(built.at("timer").at("clock"), "std::chrono::steady_clock");
  EXPECT_TRUE(built.at("environment").contains("placement"));
}

}  // namespace
}  // namespace alloclab::lab
