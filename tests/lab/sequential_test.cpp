// The stop rule (stats/sequential.hpp): variance components by hand, and the interval's pieces.
// Its error rate under repeated looks is simulated in budget_simulation_test.cpp.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

TEST(Spread, SplitsBetweenAndWithinProcessVarianceOnTheLogScale) {
  // Two processes, two repetitions each: logs {0, 0.2} and {1, 1.2}.
  const double e = std::exp(1.0);
  const process_spread s = spread_of({{1.0, std::exp(0.2)}, {e, e * std::exp(0.2)}});
  EXPECT_EQ(s.processes, 2u);
  EXPECT_EQ(s.repetitions, 4u);
  EXPECT_NEAR(s.level, 0.6, 1e-12);             // mean of the process means 0.1 and 1.1
  EXPECT_NEAR(s.within, 0.02, 1e-12);           // (0.01 * 2 + 0.01 * 2) / 2 df
  EXPECT_NEAR(s.within_part, 0.01, 1e-12);      // within / 2 repetitions per process
  EXPECT_NEAR(s.process_variance, 0.5, 1e-12);  // (0.5^2 * 2) / 1
  EXPECT_NEAR(s.between, 0.49, 1e-12);
}

TEST(Spread, UnequalProcessesWeighTheirWithinPartByOneOverTheirSize) {
  // Within-process log variance 0.01 in both: a process of 2 and one of 4 repetitions.
  const double d = 0.1;
  const process_spread s = spread_of(
      {{std::exp(-d), std::exp(d)}, {std::exp(-d), std::exp(d), std::exp(-d), std::exp(d)}});
  const double within = (2 * d * d + 4 * d * d) / (1 + 3);
  EXPECT_NEAR(s.within, within, 1e-12);
  EXPECT_NEAR(s.within_part, within * (1.0 / 2 + 1.0 / 4) / 2, 1e-12);  // not within / 3
}

TEST(Spread, OneProcessHasNoBetweenPartAndBadFiguresMakeItInvalid) {
  const process_spread one = spread_of({{100, 110, 90}});
  EXPECT_EQ(one.processes, 1u);
  EXPECT_EQ(one.between, 0);
  EXPECT_GT(one.within, 0);
  EXPECT_FALSE(spread_of({{100, 0}}).valid());
  EXPECT_FALSE(spread_of({{100, -1}}).valid());
  EXPECT_FALSE(spread_of({}).valid());
  EXPECT_EQ(spread_of({{}, {5}}).processes, 1u);  // an empty process is skipped
}

TEST(Pool, WeighsEachCellsBetweenPartByItsProcessesMinusOne) {
  process_spread a, b, lone;
  a.processes = 3;
  a.between = 0.04;
  b.processes = 2;
  b.between = 0.01;
  lone.processes = 1;
  lone.between = 9;  // a single process says nothing about the spread between processes
  const pooled_between p = pool_between({a, b, lone});
  EXPECT_NEAR(p.df, 3, 1e-12);
  EXPECT_NEAR(p.variance, (2 * 0.04 + 0.01) / 3, 1e-12);
  EXPECT_EQ(pool_between({lone}).df, 0);
}

TEST(Moderate, OneProcessTakesThePoolAndUnknownStaysUnknown) {
  const stop_rule rule;
  process_spread one;
  one.processes = 1;
  one.within_part = 0.001;
  const moderated_variance none = moderate(one, {}, rule);
  EXPECT_EQ(none.df, 0);  // no cell of the group had two processes: nothing is known
  const moderated_variance pooled = moderate(one, {0.004, 10}, rule);
  EXPECT_NEAR(pooled.variance, 0.005, 1e-12);
  EXPECT_EQ(pooled.df, rule.prior_df);  // the pool counts as prior_df, however large its own df
  process_spread many = one;
  many.processes = 5;
  many.process_variance = 0.02;
  const moderated_variance both = moderate(many, {0.004, 2}, rule);
  EXPECT_NEAR(both.variance, (2 * 0.005 + 4 * 0.02) / 6, 1e-12);
  EXPECT_EQ(both.df, 6);
}

TEST(StopRule, SpendsAlphaOverItsLooksDoublingAtEach) {
  const stop_rule four = rule_with_looks(4);
  double spent = 0;
  for (std::size_t k = 1; k <= 4; ++k) spent += four.alpha_at(k);
  EXPECT_NEAR(spent, 0.05, 1e-15);  // the union bound: at most 5 % over every look
  EXPECT_NEAR(four.alpha_at(1), 0.05 / 15, 1e-15);
  EXPECT_NEAR(four.alpha_at(4), 0.05 * 8 / 15, 1e-15);
  EXPECT_NEAR(four.confidence(), 1 - 0.05 * 8 / 15, 1e-15);  // for its last look
  EXPECT_NEAR(four.at_look(2).confidence(), 1 - 0.05 * 2 / 15, 1e-15);
  EXPECT_NEAR(rule_with_looks(1).confidence(), 0.95, 1e-15);  // a fixed plan: one look
  stop_rule naive = four;
  naive.adjusted = false;
  EXPECT_NEAR(naive.at_look(1).confidence(), 0.95, 1e-15);
}

// A look that ends the rounds whatever it sees may spend what the looks before it left: with the
// looks before it, exactly alpha over all (and a rule that spends all alpha at each look keeps
// spending it all).
TEST(StopRule, TheLastLookSpendsWhatTheLooksBeforeItLeft) {
  for (std::size_t k = 1; k <= 5; ++k) {
    const stop_rule rule = rule_with_looks(5).at_look(k);
    double spent = 0;
    for (std::size_t before = 1; before < k; ++before) spent += rule.alpha_at(before);
    EXPECT_NEAR(spent + rule.spending_the_rest().alpha_at(k), rule.alpha, 1e-15) << k;
  }
  EXPECT_NEAR(rule_with_looks(5).spending_the_rest().alpha_at(5), 0.05 * 16 / 31, 1e-15)
      << "the last planned look has nothing more to spend";
  stop_rule naive = rule_with_looks(3).at_look(1);
  naive.adjusted = false;
  EXPECT_DOUBLE_EQ(naive.spending_the_rest().alpha_at(1), 0.05);
  EXPECT_DOUBLE_EQ(rule_with_looks(4).at_look(2).among(5).spending_the_rest().alpha_at(2),
                   0.05 * 14 / 15 / 5)
      << "a pick among candidates keeps its correction";
  EXPECT_DOUBLE_EQ(rule_with_looks(8).at_look(1).spending_the_rest().alpha, 0.05)
      << "the rule's stated alpha is not rescaled";
}

// Whole runs: each side its own variance, and never an interval narrower than the figures'
// rounding: identical runs read to 0.1 still get a width, a finer resolution a narrower one.
TEST(CompareRuns, EachSideKeepsItsOwnVarianceAndTheResolutionBoundsTheWidth) {
  const std::vector<double> a(6, 2.0), b(6, 1.0);
  const stop_rule rule = rule_with_looks(1);
  const sequential_ratio coarse = compare_runs(a, b, rule, 0.1);
  ASSERT_TRUE(coarse.bounded());
  EXPECT_DOUBLE_EQ(coarse.value, 2.0);
  EXPECT_LT(coarse.low, 2.0);
  EXPECT_GT(coarse.high, 2.0);
  EXPECT_LT(compare_runs(a, b, rule, 1e-6).high, coarse.high);
  // A quiet side beside a noisy one: the quiet side's spread does not shrink the noisy one's.
  const std::vector<double> quiet{1.0, 1.001, 0.999, 1.0, 1.0005, 0.9995};
  const std::vector<double> noisy{1.0, 1.3, 0.8, 1.2, 0.9, 1.1};
  const sequential_ratio r = compare_runs(noisy, quiet, rule, 0);
  const process_spread n = spread_of({{1.0}, {1.3}, {0.8}, {1.2}, {0.9}, {1.1}});
  EXPECT_GT(r.log_se * r.log_se, n.process_variance / 6 * 0.999);
}

TEST(CompareLevels, IsAStudentIntervalAtTheLooksConfidence) {
  process_spread base, candidate;
  base.processes = candidate.processes = 4;
  base.level = std::log(200.0);
  candidate.level = std::log(100.0);
  base.process_variance = candidate.process_variance = 0.01;
  stop_rule rule = rule_with_looks(5).at_look(4);  // alpha 0.05 * 8 / 31
  rule.prior_df = 0;
  ASSERT_NEAR(rule.confidence(), 1 - 0.4 / 31, 1e-15);
  const sequential_ratio r = compare_levels(base, {}, candidate, {}, rule);
  EXPECT_NEAR(r.value, 2.0, 1e-12);
  EXPECT_NEAR(r.df, 6, 1e-9);  // Welch with equal variances: 3 + 3
  EXPECT_NEAR(r.log_se, std::sqrt(0.005), 1e-12);
  const double half = t_quantile(rule.confidence(), 6) * std::sqrt(0.005);
  EXPECT_NEAR(t_quantile(0.99, 6), 3.707428, 1e-5);  // tables: t(0.995, 6)
  EXPECT_NEAR(r.low, 2.0 * std::exp(-half), 1e-9);
  EXPECT_NEAR(r.high, 2.0 * std::exp(half), 1e-9);
  EXPECT_TRUE(decided(r, {1.0}));
  EXPECT_FALSE(decided(r, {1.0, 2.1}));  // a claim's range whose bound lies inside
  EXPECT_TRUE(r.low < 1.9 && r.high > 2.1);
}

TEST(CompareLevels, IsUnboundedWhileTheSpreadBetweenProcessesIsUnknown) {
  const process_spread one = spread_of({{100, 101, 99}});
  const sequential_ratio r = compare_levels(one, {}, one, {}, stop_rule{});
  EXPECT_FALSE(r.bounded());
  EXPECT_FALSE(decided(r, {1.0}));
  EXPECT_TRUE(std::isinf(shrink_needed(r, {1.0})));
}

TEST(ShrinkNeeded, IsTheHalfWidthOverTheDistanceToTheNearestBoundary) {
  sequential_ratio r;
  r.value = 1.2;
  r.low = 1.2 / 1.5;
  r.high = 1.2 * 1.5;
  EXPECT_NEAR(shrink_needed(r, {1.0}), std::log(1.5) / std::log(1.2), 1e-12);
  EXPECT_TRUE(std::isinf(shrink_needed(r, {1.2})));  // sitting on a boundary
}

}  // namespace
}  // namespace alloclab::lab

namespace alloclab::lab {
namespace {

// Two ring runs whose medians agree exactly (chance, or the clock's quantisation) still have the
// spread of a median of their slices: the interval must not shrink to a point (issue 37's A/A
// runs called such a pair different at the first look).
TEST(PairedSpread, RunsWhoseMediansAgreeByChanceKeepTheirSlicesSpread) {
  const figures_by_process ratios = {{0.99, 1.0, 1.01}, {0.98, 1.0, 1.02}};
  const process_spread medians_only = spread_of(median_by_run(ratios));
  EXPECT_EQ(medians_only.process_variance, 0.0);
  const sequential_ratio r = compare_paired(paired_spread(ratios), {}, rule_with_looks(1));
  ASSERT_TRUE(r.bounded());
  EXPECT_LT(r.low, 0.99);
  EXPECT_GT(r.high, 1.01);
}

}  // namespace
}  // namespace alloclab::lab
