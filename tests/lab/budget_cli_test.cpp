// `alloclab run --budget`, end to end, small: one workload, three strategies, 1 ms repetitions.
// Needed because the budgeted run has its own driver (schedule/budget_run.cpp): rounds, looks,
// the records it hands the results builder, and its account in results.json and report.md.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "model_agreement.hpp"
#include "measure/build_guard.hpp"
#include "results/schema_check.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using namespace cli_support;

class BudgetCli : public binary_test {};

TEST_F(BudgetCli, ABudgetedRunAccountsForItsProcessesAndComparisons) {
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const outcome o =
      run("run --workloads trade_batch --strategies std,pmr_monotonic,alloclab_arena --budget 30s "
          "--repetition-time 1 --no-placement-check --out " +
          (dir_ / "r").string() + allow);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("budget 0m30s: "), std::string::npos) << o.out;
  const json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  const auto problems = schema_violations(r, results_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
  model_agreement::expect_model_agrees(r, "the budgeted run's results");
  const json& b = r.at("budget");
  EXPECT_EQ(b.at("mode"), "budget");
  EXPECT_EQ(b.at("budget_seconds"), 30);
  EXPECT_GT(b.at("spent_seconds").get<double>(), 0);
  // A loaded machine (or a sanitizer build) may spend the budget before the first round's second
  // pass: the account says so, and then a cell may stand on one process.
  const bool first_round_cut =
      b.at("stopped").get<std::string>().rfind("budget spent in the first round", 0) == 0;
  // The looks were fixed after the first round, from its cost: the rule has that many.
  const json& planned = b.at("planned_after_first_round");
  ASSERT_TRUE(planned.is_object()) << b;
  EXPECT_GE(planned.at("looks").get<std::size_t>(), 2u);
  EXPECT_EQ(b.at("stop_rule").at("looks"), planned.at("looks"));
  EXPECT_LE(b.at("rounds").size(), planned.at("looks").get<std::size_t>());
  EXPECT_FALSE(b.at("rounds").empty());
  EXPECT_GE(b.at("rounds").size(), 1u);
  std::size_t vs_std = 0;
  for (const json& c : b.at("comparisons")) vs_std += c.at("kind") == "vs_std";
  EXPECT_EQ(vs_std, 2u);  // pmr_monotonic and alloclab_arena against std
  for (const json& cell : r.at("workloads").at(0).at("cells")) {
    const std::size_t processes = cell.at("processes");
    EXPECT_GE(processes, first_round_cut ? 1u : 2u) << cell.at("strategy");  // first round: 2
    const json& timing = cell.at("timing");
    const std::size_t reps = timing.at("repetition_medians_ns").size();
    EXPECT_GE(reps, 3 * processes);
    const std::size_t per_rep = timing.at("samples").get<std::size_t>() / reps;
    EXPECT_GE(per_rep, 5u);
    EXPECT_LE(per_rep, 5000u);
  }
  for (const json& cell : b.at("cells")) {
    EXPECT_TRUE(cell.at("samples_per_repetition").is_number()) << cell;
    if (!first_round_cut) {
      EXPECT_NE(cell.at("spread"), "unknown (one process)") << cell;
    }
  }
  EXPECT_TRUE(r.at("noise").at("settings").is_object());
  const std::string report = read_file(dir_ / "r" / "latest" / "report.md");
  EXPECT_NE(report.find("## Budget: what the run's time bought"), std::string::npos);
  EXPECT_NE(report.find("Where the spread is"), std::string::npos);
}

// A budget smaller than the seconds the run keeps back for closing: the first round overruns it.
// The file the run writes must still be one its own `validate` accepts (it used to write
// planned_after_first_round.seconds_left = -14, below the schema's minimum of 0).
TEST_F(BudgetCli, ABudgetSpentInTheFirstRoundStillWritesAValidFile) {
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const outcome o =
      run("run --workloads trade_batch --strategies std,pmr_monotonic --budget 1s "
          "--repetition-time 1 --no-placement-check --out " +
          (dir_ / "r").string() + allow);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Said up front: a budget within the results' reserve measures first processes only.
  EXPECT_NE(o.err.find("budget 1 s: within the 15 s kept for writing the results"),
            std::string::npos)
      << o.err;
  const json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  const auto problems = schema_violations(r, results_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
  const json& b = r.at("budget");
  EXPECT_EQ(b.at("stopped").get<std::string>().rfind("budget spent in the first round", 0), 0u)
      << b.at("stopped");
  EXPECT_EQ(b.at("planned_after_first_round").at("seconds_left").get<double>(), 0.0);
}

TEST_F(BudgetCli, ABudgetWithSizesIsBadInput) {
  const outcome o = run("run --workloads trade_batch --budget 1m --iterations 5");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("--budget"), std::string::npos) << o.err;
  EXPECT_EQ(run("run --budget soon").exit_code, 2);
}

}  // namespace
}  // namespace alloclab::lab
