// Test plan: estimate_cell_ratio, the one definition of every ratio between two cells of the
//   results model.
//   The point and the interval come from the same per-repetition figures, so the point lies
//   inside its own interval even when the pooled p50 disagrees with the repetitions (the
//   request_mix_mt case: bimodal repetitions, pooled p50 far from their median)
//   (PointIsTheRatioOfRepetitionMediansAndLiesInItsInterval).
//   Without per-repetition figures the pooled figures give the point and no interval
//   (PooledFiguresWhenThereAreNoRepetitions); a missing or zero figure gives no ratio
//   (NoRatioWithoutPositiveFigures).
#include <gtest/gtest.h>

#include "results/ratio_intervals.hpp"

namespace alloclab::lab {
namespace {

model::cell timed_medians(double pooled_p50, std::vector<double> repetition_medians) {
  model::cell c;
  c.timing.emplace();
  c.timing->p50_ns = c.timing->mean_ns = pooled_p50;
  c.timing->repetition_medians_ns = std::move(repetition_medians);
  return c;
}

TEST(RatioIntervals, PointIsTheRatioOfRepetitionMediansAndLiesInItsInterval) {
  // Baseline: repetitions agree at 100 ns. Candidate: most repetitions near 100 ns, a few
  // much faster ones with many samples each, which drag the pooled p50 to 60 ns.
  const model::cell base = timed_medians(100, {99, 100, 101, 100, 100, 99, 101});
  const model::cell candidate = timed_medians(60, {101, 100, 102, 99, 100, 50, 52});
  const auto r = estimate_cell_ratio("speedup_p50", base, candidate);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->value, 1.0);  // median 100 / median 100, not 100 / 60
  ASSERT_TRUE(r->range.valid());
  EXPECT_LE(r->range.low, r->value);
  EXPECT_GE(r->range.high, r->value);
  EXPECT_EQ(r->base_repetitions, 7u);
  EXPECT_EQ(r->candidate_repetitions, 7u);
}

TEST(RatioIntervals, PooledFiguresWhenThereAreNoRepetitions) {
  const auto r = estimate_cell_ratio("speedup_mean", timed_medians(120, {}), timed_medians(40, {}));
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->value, 3.0);
  EXPECT_FALSE(r->range.valid());
}

TEST(RatioIntervals, NoRatioWithoutPositiveFigures) {
  EXPECT_FALSE(estimate_cell_ratio("speedup_p50", timed_medians(0, {1, 2}), timed_medians(10, {10}))
                   .has_value());
  EXPECT_FALSE(estimate_cell_ratio("speedup_p50", model::cell(), timed_medians(10, {10})));
  EXPECT_FALSE(
      estimate_cell_ratio("no_such_metric", timed_medians(10, {10}), timed_medians(10, {10})));
}

}  // namespace
}  // namespace alloclab::lab
