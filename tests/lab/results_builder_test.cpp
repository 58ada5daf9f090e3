// Test plan: results/results_builder's comparisons (add_comparisons) on hand-made cells.
//   a heap-study cell's pair-cost ratio against the baseline malloc carries its bootstrap
//     interval, and a lab cell has none (HeapCellsCompareTheirPairCostWithAnInterval);
//   the document's skeleton (config, environment, timer, significance, noise, budget, shard) is
//     built as the results model and written by its one to_json: what build_results returns reads
//     back into the model with every key and value, writes again identically and is valid against
//     the generated schema; a frame that did not run has no settings in `config`
//     (TheSkeletonIsTheModelsOwnJson);
//   fixed records of every frame `run` measures (batch with its placement twin and peers, heap,
//     memory, serve with failed variants: the shard in tests/data/results_golden/shard, a
//     `run --shard 1/1` of 2 mallocs x 6 strategies, 2 lab, 2 heap and both memory workloads)
//     are built into the very bytes 8fa90df's results builder wrote from them (merged.json, a
//     `merge` of the shard; 8fa90df passes this test): each frame's typed part, the
//     comparisons, warnings, claims and the version 6 layout
//     (FixedRecordsOfEveryFrameGiveTheBytesVersion6Wrote).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli_support.hpp"
#include "measure/build_guard.hpp"
#include "merge/merge_inputs.hpp"
#include "merge/shard_merge.hpp"
#include "model_agreement.hpp"
#include "results/environment.hpp"
#include "results/results_builder.hpp"

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
  plan.sizes.memory_repetitions = 5;  // no lab workload: config.repetitions is the memory frame's
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

// The first line where two texts part, for a failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t at = 0, line = 1;
  while (at < a.size() && at < b.size() && a[at] == b[at]) line += a[at++] == '\n';
  const auto line_at = [at](const std::string& s) {
    const std::size_t begin = s.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    return s.substr(from, s.find('\n', at) - from);
  };
  return "line " + std::to_string(line) + ":\n  want: " + line_at(a) + "\n  got:  " + line_at(b);
}

TEST(ResultsBuilder, FixedRecordsOfEveryFrameGiveTheBytesVersion6Wrote) {
  const std::filesystem::path data = std::filesystem::path(ALLOCLAB_TEST_DATA) / "results_golden";
  const std::string want = cli_support::read_file(data / "merged.json");
  const json golden = json::parse(want);
  merge_input shard = read_merge_input((data / "shard").string());
  // Merge refuses shards of another build: this one stands in for the build that measured them.
  shard.results["environment"] = model::write_json(describe_environment(current_build()));
  shard.path = golden.at("merged").at("shards").at(0).at("path");
  json built = merge_shards({&shard}, golden.at("command"), golden.at("created_utc"));
  built["environment"] = golden.at("environment");  // merge keeps the shard's: the host's here
  const std::string got = built.dump(2) + "\n";
  EXPECT_TRUE(got == want) << first_difference(want, got);
  for (const char* frame : {"batch", "heap", "memory"}) {
    const auto& workloads = golden.at("workloads");
    EXPECT_TRUE(std::any_of(workloads.begin(), workloads.end(),
                            [frame](const json& w) { return w.at("frame") == frame; }))
        << "the fixture has no " << frame << " workload";
  }
  EXPECT_TRUE(golden.at("serve").is_object()) << "the fixture has no serve section";
}

}  // namespace
}  // namespace alloclab::lab
