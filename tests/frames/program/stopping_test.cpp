// The adaptive stopping of `alloclab try`: the rounds' stop rule (schedule/round_stopping.hpp) on
// the program frame's runs (frames/program/stopping.hpp), on synthetic runs: no process is
// started and no clock is read (elapsed times are given).
//
// Test plan:
//  - the plan: looks at min_rounds, then growing by half, the last at max_rounds; a fixed plan runs
//    exactly its rounds and takes no look;
//  - a look: clearly separated combinations are decided, identical ones inside the noise band are
//    decided, one sitting on the noise floor stays open;
//  - the stopper: stops at the first look where all are decided, runs on while one is open, stops
//    when the budget cannot pay for another round (taking one last look), never looks more often
//    than planned; an interrupt takes one last look that spends the alpha left (none in a fixed
//    plan);
//  - by simulation (lognormal run times, fixed seed): comparisons whose true ratio sits on a
//    noise boundary are decided at most 5 % of the time, and those well off it are decided on
//    the right side (the intervals are the final look's, as the figures report them).
#include "frames/program/stopping.hpp"

#include <cmath>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "frames/program/figures.hpp"
#include "run_rows.hpp"

namespace alloclab::program {
namespace {

std::vector<lab::round_reading> cpu_of(const std::vector<run_row>& rows) {
  return readings_of(rows, cpu_seconds_of);
}

lab::round_judged judged(std::vector<std::string> labels) {
  return {labels.size(), 0, labels, 0.03, cpu_resolution_seconds};
}

lab::round_judged judged_n(std::size_t cells) {
  return judged(std::vector<std::string>(cells, "c"));
}

run_row run(std::size_t round, std::size_t combination, double cpu) {
  return synthetic_run(round, combination, cpu);
}

// Rounds of runs whose CPU times are true_ratio[c] x baseline, lognormal noise of `cv`.
struct simulated_program {
  std::vector<double> true_ratio;  // index 0 is the baseline (1.0)
  double cv = 0.02;
  std::mt19937_64 engine{1};
  std::vector<double> cv_scale{};  // per combination (empty: all 1)
  void add_round(std::vector<run_row>& rows, std::size_t round) {
    std::normal_distribution<double> noise(0, 1);
    for (std::size_t c = 0; c < true_ratio.size(); ++c) {
      const double scale = c < cv_scale.size() ? cv_scale[c] : 1.0;
      rows.push_back(run(round, c, 2.0 * true_ratio[c] * std::exp(cv * scale * noise(engine))));
    }
  }
};

TEST(TryStopping, TheDefaultLooks) {
  EXPECT_EQ(adaptive_stopping(4, 40, 300).look_rounds,
            (std::vector<std::size_t>{4, 6, 9, 14, 21, 32, 40}));
}

TEST(TryStopping, TheLooksArePlannedBeforeAnyRun) {
  const auto plan = adaptive_stopping(3, 40, 300);
  EXPECT_TRUE(plan.adaptive);
  EXPECT_EQ(plan.look_rounds, (std::vector<std::size_t>{3, 5, 8, 12, 18, 27, 40}));
  EXPECT_EQ(plan.rule_at(1).looks, 7u);
  EXPECT_LT(plan.rule_at(1).alpha_at(1), plan.rule_at(7).alpha_at(7));
  EXPECT_EQ(adaptive_stopping(3, 3, 10).look_rounds, (std::vector<std::size_t>{3}));
  const auto fixed = fixed_stopping(5);
  EXPECT_FALSE(fixed.adaptive);
  EXPECT_EQ(fixed.max_rounds, 5u);
  EXPECT_DOUBLE_EQ(fixed.rule_at(1).confidence(), 0.95);
}

TEST(TryStopping, ALookDecidesSeparatedAndEqualCombinationsAndKeepsTheFloorOpen) {
  simulated_program p{{1.0, 0.80, 1.0, 1.03}, 0.01};
  std::vector<run_row> rows;
  for (std::size_t r = 0; r < 12; ++r) p.add_round(rows, r);
  const auto look = lab::judge_rounds(cpu_of(rows), judged_n(4), lab::rule_with_looks(1));
  ASSERT_EQ(look.comparisons.size(), 3u);
  EXPECT_TRUE(look.comparisons[0].decided) << "0.80: faster, beyond the floor";
  EXPECT_LT(look.comparisons[0].ratio.high, 1 / 1.03);
  EXPECT_TRUE(look.comparisons[1].decided) << "1.00: wholly inside the noise band";
  EXPECT_FALSE(look.comparisons[2].decided) << "1.03 sits on the floor";
  EXPECT_EQ(look.open(), 1u);
}

// A host that is 1.6x slower in some rounds moves every run of that round: the runs of one round
// are paired, so a steady 8 % gain is decided although the rounds' levels overlap it by far.
TEST(TryStopping, RunsArePairedByRoundSoAHostLevelShiftCancels) {
  std::vector<run_row> rows;
  std::mt19937_64 engine(5);
  std::normal_distribution<double> noise(0, 0.005);
  for (std::size_t r = 0; r < 12; ++r) {
    const double level = r % 3 == 0 ? 1.6 : 1.0;
    rows.push_back(run(r, 0, 2.0 * level * std::exp(noise(engine))));
    rows.push_back(run(r, 1, 2.0 * 0.92 * level * std::exp(noise(engine))));
  }
  const auto look = lab::judge_rounds(cpu_of(rows), judged_n(2), lab::rule_with_looks(1));
  ASSERT_EQ(look.comparisons.size(), 1u);
  EXPECT_TRUE(look.comparisons[0].decided);
  EXPECT_NEAR(look.comparisons[0].ratio.value, 0.92, 0.01);
  EXPECT_LT(look.comparisons[0].ratio.high, 1 / 1.03);
  // Unpaired, the same runs leave it open.
  std::vector<double> a, b;
  for (const run_row& row : rows)
    (row.combination == 1 ? a : b).push_back(row.record.figures.cpu_seconds);
  const auto unpaired = lab::compare_runs(a, b, lab::rule_with_looks(1), cpu_resolution_seconds);
  EXPECT_GT(unpaired.high, 1 / 1.03);
}

// The verdict also needs the U test to be able to reach p < 0.05, which 3 runs a side cannot:
// a look must not stop rounds whose verdict would then read "too few runs".
TEST(TryStopping, NothingIsDecidedBeforeTheUTestCanBe) {
  simulated_program p{{1.0, 0.5}, 0.001};
  std::vector<run_row> rows;
  for (std::size_t r = 0; r < 3; ++r) p.add_round(rows, r);
  EXPECT_EQ(lab::judge_rounds(cpu_of(rows), judged_n(2), lab::rule_with_looks(1)).open(), 1u);
  p.add_round(rows, 3);
  EXPECT_EQ(lab::judge_rounds(cpu_of(rows), judged_n(2), lab::rule_with_looks(1)).open(), 0u);
}

TEST(TryStopping, AFixedPlanRunsItsRoundsAndTakesNoLook) {
  round_stopper stopper(fixed_stopping(4), judged({"glibc", "jemalloc"}));
  simulated_program p{{1.0, 0.5}, 0.01};
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (stopper.another_round(cpu_of(rows), rounds, 1.0 * static_cast<double>(rounds)));
  EXPECT_EQ(rounds, 4u);
  EXPECT_EQ(stopper.outcome().looks_taken, 0u);
  EXPECT_EQ(stopper.outcome().stopped_because, "the fixed number of rounds");
}

TEST(TryStopping, StopsAtTheFirstLookWhereEveryComparisonIsDecided) {
  round_stopper stopper(adaptive_stopping(4, 40, 1e6), judged({"glibc", "a", "b"}));
  simulated_program p{{1.0, 0.5, 2.0}, 0.005};
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (stopper.another_round(cpu_of(rows), rounds, static_cast<double>(rounds)));
  EXPECT_EQ(rounds, 4u);
  EXPECT_EQ(stopper.outcome().looks_taken, 1u);
  EXPECT_EQ(stopper.outcome().stopped_because, "every comparison decided");
  EXPECT_TRUE(stopper.outcome().open.empty());
  EXPECT_EQ(stopper.outcome().decided, 2u);
}

TEST(TryStopping, AnOpenComparisonRunsToTheMaximumAndIsNamed) {
  round_stopper stopper(adaptive_stopping(3, 12, 1e6), judged({"glibc", "on-the-floor"}));
  simulated_program p{{1.0, 1.03}, 0.02};
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (stopper.another_round(cpu_of(rows), rounds, static_cast<double>(rounds)));
  EXPECT_EQ(rounds, 12u);
  EXPECT_EQ(stopper.outcome().looks_taken, 4u) << "looks after rounds 3, 5, 8 and 12";
  EXPECT_EQ(stopper.outcome().stopped_because, "the maximum number of rounds");
  EXPECT_EQ(stopper.outcome().open, (std::vector<std::string>{"on-the-floor"}));
}

TEST(TryStopping, TheBudgetEndsTheRoundsWithOneLastLook) {
  // Each round takes 10 s of a 45 s budget: after 4 rounds a fifth would overrun.
  round_stopper stopper(adaptive_stopping(3, 40, 45), judged({"glibc", "open"}));
  simulated_program p{{1.0, 1.03}, 0.02};
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (stopper.another_round(cpu_of(rows), rounds, 10.0 * static_cast<double>(rounds)));
  EXPECT_EQ(rounds, 4u);
  EXPECT_EQ(stopper.outcome().looks_taken, 2u) << "the planned look at 3, the budget's at 4";
  EXPECT_EQ(stopper.outcome().stopped_because, "the budget spent");
  // No look can follow the budget's: it spends all the alpha look 1 left.
  const double spent = adaptive_stopping(3, 40, 45).rule_at(1).alpha_at(1);
  EXPECT_NEAR(stopper.final_rule().confidence(), 1 - (0.05 - spent), 1e-12);
  EXPECT_NEAR(stopper.outcome().confidence, stopper.final_rule().confidence(), 1e-12);
}

TEST(TryStopping, AnInterruptTakesOneLastLookSpendingTheAlphaLeft) {
  round_stopper stopper(adaptive_stopping(4, 40, 300), judged({"glibc", "faster"}));
  simulated_program p{{1.0, 0.8}, 0.01};
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (rounds < 3 && stopper.another_round(cpu_of(rows), rounds, static_cast<double>(rounds)));
  EXPECT_EQ(stopper.outcome().looks_taken, 0u) << "no planned look before round 4";
  stopper.interrupted(cpu_of(rows), rounds, 2);
  EXPECT_EQ(stopper.outcome().stopped_because, "interrupted by signal 2");
  EXPECT_EQ(stopper.outcome().rounds, 3u);
  EXPECT_EQ(stopper.outcome().looks_taken, 1u);
  EXPECT_NEAR(stopper.final_rule().confidence(), 0.95, 1e-12) << "the only look: all of alpha";
  EXPECT_EQ(stopper.outcome().compared, 1u);
}

TEST(TryStopping, AnInterruptedFixedPlanTakesNoLook) {
  round_stopper stopper(fixed_stopping(10), judged({"glibc", "other"}));
  simulated_program p{{1.0, 1.2}, 0.01};
  std::vector<run_row> rows;
  for (std::size_t round = 0; round < 3; ++round) p.add_round(rows, round);
  stopper.interrupted(cpu_of(rows), 3, 15);
  EXPECT_EQ(stopper.outcome().stopped_because, "interrupted by signal 15");
  EXPECT_EQ(stopper.outcome().looks_taken, 0u);
  EXPECT_EQ(stopper.outcome().rounds, 3u);
}

TEST(TryStopping, ABaselineThatFailsEveryRunStopsTheRoundsAtTheFirstLook) {
  round_stopper stopper(adaptive_stopping(4, 40, 1e6), judged({"glibc", "jemalloc"}));
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do {
    run_row failed = run(rounds, 0, 1.0);
    failed.record.ok = false;
    rows.push_back(failed);
    rows.push_back(run(rounds, 1, 1.0 + 0.01 * static_cast<double>(rounds)));
    ++rounds;
  } while (stopper.another_round(cpu_of(rows), rounds, static_cast<double>(rounds)));
  EXPECT_EQ(rounds, 4u);
  EXPECT_EQ(stopper.outcome().stopped_because, "no open comparison a round could decide");
  EXPECT_EQ(stopper.outcome().failing, (std::vector<std::string>{"jemalloc"}));
  EXPECT_TRUE(stopper.outcome().open.empty());
}

// Identical runs (a figure read to its resolution, e.g. peak RSS in KiB) still get an interval
// as wide as that rounding, never a zero-width one.
TEST(TryStopping, IdenticalRunsGetTheResolutionsWidthNotZero) {
  const std::vector<double> a(6, 2.0), b(6, 1.0);
  const auto rule = adaptive_stopping(4, 40, 100).rule_at(1);
  const auto r = lab::compare_runs(a, b, rule, 0.1);
  ASSERT_TRUE(r.bounded());
  EXPECT_DOUBLE_EQ(r.value, 2.0);
  EXPECT_LT(r.low, 2.0);
  EXPECT_GT(r.high, 2.0);
  const auto precise = lab::compare_runs(a, b, rule, 1e-6);
  EXPECT_LT(precise.high - precise.low, r.high - r.low);
}

// Runs the stopper on one simulated program; returns each comparison's final interval.
std::vector<lab::sequential_ratio> stopped_intervals(simulated_program& p) {
  stopping_plan plan = adaptive_stopping(4, 40, 1e9);
  const std::size_t n = p.true_ratio.size();
  std::vector<std::string> labels(n, "c");
  round_stopper stopper(plan, judged(labels));
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  do p.add_round(rows, rounds++);
  while (stopper.another_round(cpu_of(rows), rounds, static_cast<double>(rounds)));
  const lab::stop_rule rule = stopper.final_rule();
  std::vector<lab::sequential_ratio> out;
  for (const auto& c : lab::judge_rounds(cpu_of(rows), judged_n(n), rule).comparisons)
    out.push_back(c.ratio);
  return out;
}

TEST(TryStopping, BySimulationFalseDecisionsStayUnderFivePercent) {
  // Truth on a boundary (1.03, 1/1.03): any decision there is false. Off it (0.85, 1.0, 1.2):
  // a decision must be on the right side of the floor.
  const std::vector<double> truth{1.0, 1.03, 1 / 1.03, 0.85, 1.0, 1.2};
  int on_boundary = 0, false_on_boundary = 0, off = 0, wrong_side = 0, decided_off = 0;
  const std::vector<double> bounds = noise_boundaries(0.03);
  for (int seed = 1; seed <= 300; ++seed) {
    simulated_program p{truth, 0.01 + 0.0001 * seed};
    p.engine.seed(static_cast<std::uint64_t>(seed));
    // Every other program: the compared combinations 4x noisier than the rest (a pool of
    // spreads would understate theirs).
    if (seed % 2 == 0) p.cv_scale = {1, 4, 4, 1, 1, 1};
    const auto intervals = stopped_intervals(p);
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      const double t = truth[i + 1];
      const bool d = lab::decided(intervals[i], bounds);
      const bool boundary = std::abs(t - 1.03) < 1e-9 || std::abs(t - 1 / 1.03) < 1e-9;
      if (boundary) {
        ++on_boundary;
        false_on_boundary += d;
      } else {
        ++off;
        decided_off += d;
        wrong_side += d && (t < intervals[i].low || t > intervals[i].high);
      }
    }
  }
  std::cout << "on a boundary: " << false_on_boundary << " of " << on_boundary
            << " decided; off it: " << decided_off << " of " << off << " decided, " << wrong_side
            << " on the wrong side\n";
  EXPECT_GE(decided_off, off * 9 / 10) << "the rule must also decide what is clear";
  EXPECT_LE(false_on_boundary, on_boundary * 5 / 100)
      << false_on_boundary << " of " << on_boundary << " boundary comparisons decided";
  EXPECT_LE(wrong_side, off * 5 / 100) << wrong_side << " of " << off;
}

TEST(TryStopping, AdaptiveFiguresUseTheStopRulesIntervalAndTheLabsVerdict) {
  simulated_program p{{1.0, 0.7}, 0.01};
  std::vector<run_row> rows;
  for (std::size_t r = 0; r < 5; ++r) p.add_round(rows, r);
  const std::vector<variant> two{{"glibc", {}}, {"jemalloc", {}}};
  const lab::stop_rule rule = adaptive_stopping(3, 40, 100).rule_at(2);
  const auto f = compute_figures(two, rows, false, 0.03, rule);
  ASSERT_TRUE(f.combinations[1].cpu.has_value());
  const auto& cpu = *f.combinations[1].cpu;
  const auto expected = lab::judge_rounds(cpu_of(rows), judged_n(2), rule).comparisons.at(0).ratio;
  EXPECT_DOUBLE_EQ(cpu.range.low, expected.low);
  EXPECT_DOUBLE_EQ(cpu.range.high, expected.high);
  EXPECT_STREQ(cpu_verdict(cpu.verdict), "faster");
  const auto bootstrap = compute_figures(two, rows, false, 0.03);
  EXPECT_NE(bootstrap.combinations[1].cpu->range.low, cpu.range.low) << "not the bootstrap's";
}

}  // namespace
}  // namespace alloclab::program
