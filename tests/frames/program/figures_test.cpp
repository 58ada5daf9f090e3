// The schedule and the statistics of the program frame, on synthetic runs (no process started).
#include "frames/program/figures.hpp"

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

namespace alloclab::program {
namespace {

// The try plan's schedule is the lab's interleaved one: every round each combination once.
TEST(ProgramRounds, EachRoundIsAPermutationAndTheSeedRepeatsIt) {
  try_plan frame_plan;
  frame_plan.combinations.resize(5);
  frame_plan.rounds = 20;
  frame_plan.seed = 7;
  const auto orders_of = [&](std::uint64_t seed) {
    frame_plan.seed = seed;
    std::vector<std::vector<std::size_t>> orders(20);
    for (const lab::task& t : make_program_plan(frame_plan).schedule) {
      EXPECT_EQ(t.repetitions, 1u) << "one run of the program is one task";
      orders.at(t.part).push_back(t.cell);
    }
    return orders;
  };
  const auto orders = orders_of(7);
  for (auto order : orders) {
    std::sort(order.begin(), order.end());
    std::vector<std::size_t> expected(5);
    std::iota(expected.begin(), expected.end(), std::size_t{0});
    EXPECT_EQ(order, expected);
  }
  EXPECT_EQ(orders, orders_of(7));
  EXPECT_NE(orders, orders_of(8));
  EXPECT_GT(std::count(orders.begin(), orders.end(), orders.front()), 0);
  EXPECT_LT(std::count(orders.begin(), orders.end(), orders.front()), 20) << "never reshuffled";
}

run_row row(std::size_t combination, double cpu, std::uint64_t rss, std::uint64_t hash = 1,
            bool ok = true) {
  run_row r;
  r.combination = combination;
  r.record.ok = ok;
  r.record.live = ok;
  r.record.reason = ok ? "" : "timed out after 1.0 s (process group killed)";
  r.record.figures.user_seconds = r.record.figures.cpu_seconds = cpu;
  r.record.figures.peak_rss_bytes = rss;
  r.record.stdout_hash = hash;
  return r;
}

const std::vector<variant> three{{"jemalloc", {}}, {"glibc", {}}, {"mimalloc", {}}};

// glibc 1.0 s / 100 MB; jemalloc 0.8 s / 120 MB (faster, larger); mimalloc 1.2 s / 130 MB.
std::vector<run_row> separated_runs(std::size_t per_side) {
  std::vector<run_row> rows;
  for (std::size_t i = 0; i < per_side; ++i) {
    const double jitter = 0.001 * static_cast<double>(i);
    rows.push_back(row(1, 1.0 + jitter, 100'000'000 + i));
    rows.push_back(row(0, 0.8 + jitter, 120'000'000 + i));
    rows.push_back(row(2, 1.2 + jitter, 130'000'000 + i));
  }
  return rows;
}

TEST(ProgramFigures, RatiosToGlibcAreJudgedByTheLabsRule) {
  const auto f = compute_figures(three, separated_runs(8), false);
  EXPECT_EQ(f.baseline, 1u);
  EXPECT_FALSE(f.combinations[1].cpu.has_value());
  ASSERT_TRUE(f.combinations[0].cpu.has_value());
  EXPECT_NEAR(f.combinations[0].cpu->value, 0.8, 0.01);
  EXPECT_STREQ(cpu_verdict(f.combinations[0].cpu->verdict), "faster");
  EXPECT_STREQ(memory_verdict(f.combinations[0].peak_rss->verdict), "larger");
  EXPECT_STREQ(cpu_verdict(f.combinations[2].cpu->verdict), "slower");
}

TEST(ProgramFigures, TheParetoFrontKeepsWhatNothingBeatsOnBoth) {
  const auto f = compute_figures(three, separated_runs(8), false);
  EXPECT_TRUE(f.combinations[0].on_pareto_front);   // least CPU
  EXPECT_TRUE(f.combinations[1].on_pareto_front);   // least RSS
  EXPECT_FALSE(f.combinations[2].on_pareto_front);  // glibc has less of both
}

TEST(ProgramFigures, TooFewRunsIsNotAVerdict) {
  const auto f = compute_figures(three, separated_runs(2), false);
  EXPECT_STREQ(cpu_verdict(f.combinations[0].cpu->verdict), "too few runs");
}

TEST(ProgramFigures, FailedRunsGiveNoNumbersButTheirReason) {
  auto rows = separated_runs(4);
  rows.push_back(row(2, 0, 0, 1, false));
  const auto f = compute_figures(three, rows, false);
  EXPECT_EQ(f.combinations[2].runs_ok, 4u);
  EXPECT_EQ(f.combinations[2].runs_failed, 1u);
  ASSERT_EQ(f.combinations[2].failures.size(), 1u);
  EXPECT_NE(f.combinations[2].failures[0].find("timed out"), std::string::npos);
}

TEST(ProgramFigures, OutputThatDiffersByMallocIsAFinding) {
  auto rows = separated_runs(3);
  for (run_row& r : rows) r.record.stdout_hash = r.combination == 2 ? 9 : 1;
  const auto f = compute_figures(three, rows, true);
  EXPECT_TRUE(f.output.checked);
  EXPECT_FALSE(f.output.consistent);
  EXPECT_NE(f.output.finding.find("differs by malloc"), std::string::npos) << f.output.finding;
  EXPECT_NE(f.output.finding.find("mimalloc"), std::string::npos) << f.output.finding;
}

TEST(ProgramFigures, IdenticalOutputIsConsistent) {
  const auto f = compute_figures(three, separated_runs(3), true);
  EXPECT_TRUE(f.output.consistent);
  EXPECT_TRUE(f.output.finding.empty());
}

}  // namespace
}  // namespace alloclab::program

namespace alloclab::program {
namespace {

// The CPU figure is the median of each run's user + sys, not the sum of the two medians: runs of
// (user, sys) (1, 1), (2, 0), (3, 0.1) have CPU times 2, 2, 3.1 (median 2), while the medians of
// user and sys add up to 2.1.
TEST(ProgramFigures, CpuIsTheMedianOfEachRunsUserPlusSys) {
  std::vector<run_row> rows;
  for (const auto& [user, sys] : std::vector<std::pair<double, double>>{{1, 1}, {2, 0}, {3, 0.1}}) {
    run_row r;
    r.record.ok = r.record.live = true;
    r.record.figures.user_seconds = user;
    r.record.figures.sys_seconds = sys;
    r.record.figures.cpu_seconds = user + sys;
    rows.push_back(r);
  }
  const auto f = compute_figures({{"glibc", {}}}, rows, false);
  EXPECT_DOUBLE_EQ(f.combinations.at(0).median.cpu_seconds, 2.0);
}

}  // namespace
}  // namespace alloclab::program
