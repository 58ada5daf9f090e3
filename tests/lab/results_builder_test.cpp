// Test plan: results/results_builder's comparisons (add_comparisons) on hand-made model cells.
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
//     are built into the very bytes the builder wrote from them when the fixture was made
//     (merged.json, a `merge` of the shard). 8fa90df's JSON-editing builder and the typed one
//     that replaced it both wrote that fixture's first version byte for byte; it was made again
//     when the shard file's layout changed (frames' own sizes): each frame's typed part, the
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
#include "results/cell_parts.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "results/results_builder.hpp"
#include "frames/memory/run_options.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// A frame's cell figures that define the pair-cost metric, as the heap frame's do.
struct pair_figures {
  std::vector<double> per_repetition;
  double mean = 0;
  static constexpr const char* about_type = "test";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mean, "mean", "mean");
  }
  std::optional<model::repetition_series> series(const std::string& metric) const {
    if (metric != "speedup_ns_per_pair") return std::nullopt;
    return model::repetition_series{per_repetition, mean};
  }
};

model::cell timed(const std::string& malloc, double ns, std::optional<pair_figures> pairs) {
  const std::vector<double> medians = {ns * 0.99, ns, ns * 1.01, ns, ns};
  model::cell c;
  c.head.strategy = "malloc";
  c.head.malloc = malloc;
  c.head.status = "ok";
  c.timing.emplace();
  c.timing->p50_ns = c.timing->mean_ns = ns;
  c.timing->p99_ns = 2 * ns;
  c.timing->jitter_ns = ns;
  c.timing->cv = 0.1;
  c.timing->repetition_medians_ns = c.timing->repetition_means_ns = medians;
  if (pairs) c.figures = model::figures::of(std::move(*pairs));
  return c;
}

pair_figures pairs(double mean) {
  return {{mean * 0.98, mean, mean * 1.02, mean * 0.99, mean * 1.01}, mean};
}

model::workload workload_of(std::vector<model::cell> cells) {
  model::workload w;
  w.baseline = {"malloc", "glibc"};
  w.cells = std::move(cells);
  return w;
}

TEST(ResultsBuilder, HeapCellsCompareTheirPairCostWithAnInterval) {
  model::workload heap =
      workload_of({timed("glibc", 1000, pairs(100)), timed("jemalloc", 500, pairs(50))});
  add_comparisons(heap, true);
  EXPECT_FALSE(heap.cells[0].vs_std) << "the baseline";
  ASSERT_TRUE(heap.cells[1].vs_std);
  const model::comparison& vs = *heap.cells[1].vs_std;
  ASSERT_TRUE(vs.speedup_ns_per_pair && *vs.speedup_ns_per_pair);
  EXPECT_NEAR(**vs.speedup_ns_per_pair, 2.0, 1e-9);
  ASSERT_TRUE(vs.intervals.speedup_ns_per_pair && *vs.intervals.speedup_ns_per_pair);
  const model::interval& range = **vs.intervals.speedup_ns_per_pair;
  // Every resample of glibc's per-repetition costs over jemalloc's lies in [0.98/1.02, 1.02/0.98] × 2.
  EXPECT_GE(range.low, 2 * 0.98 / 1.02);
  EXPECT_LE(range.high, 2 * 1.02 / 0.98);
  EXPECT_LE(range.low, 2.0);
  EXPECT_GE(range.high, 2.0);

  model::workload lab =
      workload_of({timed("glibc", 1000, std::nullopt), timed("jemalloc", 500, std::nullopt)});
  add_comparisons(lab, true);
  ASSERT_TRUE(lab.cells[1].vs_std);
  EXPECT_FALSE(model::write_json(*lab.cells[1].vs_std).contains("speedup_ns_per_pair"));
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
  model::shard_facts& shard = context.shard.emplace();
  shard.index = 1;
  shard.count = 2;
  shard.source = "plan";
  shard.costs = "expected";
  const json built = model::to_json(build_results(plan, run, context));

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

std::filesystem::path golden_data() {
  return std::filesystem::path(ALLOCLAB_TEST_DATA) / "results_golden";
}

// The golden shard (records of every frame) merged again, the merge's facts taken from `golden`.
model::document merged_golden_shard(const json& golden) {
  merge_input shard = read_merge_input((golden_data() / "shard").string());
  // Merge refuses shards of another build: this one stands in for the build that measured them.
  shard.results.environment = describe_environment(current_build());
  shard.path = golden.at("merged").at("shards").at(0).at("path");
  model::document merged = merge_shards({&shard}, golden.at("command"), golden.at("created_utc"));
  // merge keeps the shard's environment: the host's here
  merged.environment = model::read_json<model::environment>(golden.at("environment"));
  return merged;
}

TEST(ResultsBuilder, FixedRecordsOfEveryFrameGiveTheBytesVersion6Wrote) {
  const std::string want = cli_support::read_file(golden_data() / "merged.json");
  const json golden = json::parse(want);
  const std::string got = model::to_json(merged_golden_shard(golden)).dump(2) + "\n";
  EXPECT_TRUE(got == want) << first_difference(want, got);
  for (const char* frame : {"batch", "heap", "memory"}) {
    const auto& workloads = golden.at("workloads");
    EXPECT_TRUE(std::any_of(workloads.begin(), workloads.end(),
                            [frame](const json& w) { return w.at("frame") == frame; }))
        << "the fixture has no " << frame << " workload";
  }
  EXPECT_TRUE(golden.at("serve").is_object()) << "the fixture has no serve section";
}

// The run-directory writer renders the document it was given, not results.json read back
// (render/run_directory.hpp): for a built document of every frame the two render alike.
TEST(ResultsBuilder, ABuiltDocumentRendersAsItsFileReads) {
  const json golden = json::parse(cli_support::read_file(golden_data() / "merged.json"));
  const model::document built = merged_golden_shard(golden);
  const json written = model::to_json(built);
  const model::document read_back = model::from_json(written);
  const std::string report = render_report(built);
  EXPECT_EQ(report, render_report(read_back));
  EXPECT_EQ(render_html_report(built, report, written), render_html_report(written));
}

}  // namespace
}  // namespace alloclab::lab
