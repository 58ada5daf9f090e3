#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "stats/decision.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

TEST(Percentile, InterpolatesLinearlyBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(percentile({10, 1, 7, 3, 5, 9, 2, 8, 6, 4}, 0.9), 9.1);  // numpy: 9.1
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(percentile({3, 1, 2}, 1.0), 3.0);
  EXPECT_DOUBLE_EQ(percentile({42}, 0.99), 42.0);
}

TEST(Percentile, RejectsAnEmptySample) {
  EXPECT_THROW(percentile({}, 0.5), std::invalid_argument);
}

TEST(Summary, MatchesHandComputedFigures) {
  const summary s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_NEAR(s.stddev, 2.138089935299395, 1e-12);  // sample standard deviation (n - 1)
  EXPECT_NEAR(s.cv, 2.138089935299395 / 5, 1e-12);
  EXPECT_DOUBLE_EQ(s.p50, 4.5);
  EXPECT_DOUBLE_EQ(s.jitter, s.p99 - s.p50);
}

TEST(Summary, JitterIsAbsoluteWhileCvIsRelative) {
  // Seed 000, bug 3: the slower series has the lower CV but the larger absolute jitter.
  std::vector<double> fast, slow;
  for (int i = 0; i < 100; ++i) {
    fast.push_back(17'000 + (i % 10) * 170.0);
    slow.push_back(69'000 + (i % 10) * 414.0);
  }
  const summary f = summarize(fast), s = summarize(slow);
  EXPECT_LT(s.cv, f.cv);
  EXPECT_GT(s.jitter, f.jitter);
}

TEST(MannWhitney, CompletelySeparatedSamplesGiveTheExactMinimum) {
  const mann_whitney_result r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 252.0, 1e-12);  // 2 / C(10, 5)
  EXPECT_NEAR(mann_whitney_min_p(5, 5), 2.0 / 252.0, 1e-12);
}

TEST(MannWhitney, TextbookExampleWithoutTies) {
  // Pooled ranks give R1 = 32, U1 = 32 - 15 = 17, U2 = 3; P(U <= 3) = 7 / C(9, 4) = 7 / 126.
  const mann_whitney_result r = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 17);
  EXPECT_NEAR(r.p_value, 14.0 / 126.0, 1e-12);
  // The test is symmetric in its arguments.
  EXPECT_NEAR(mann_whitney_u({20, 11, 17, 12}, {19, 22, 16, 29, 24}).p_value, r.p_value, 1e-12);
}

TEST(MannWhitney, TiesUseTheCorrectedNormalApproximation) {
  // Midranks 1, 2, 3.5, 5.5 -> U = 2; variance 16/12 * (9 - 12/56); continuity-corrected z = 1.60696.
  const mann_whitney_result r = mann_whitney_u({1, 2, 3, 4}, {3, 4, 5, 6});
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 2);
  EXPECT_NEAR(r.p_value, 0.10806337293756862, 1e-9);
}

TEST(MannWhitney, IdenticalSamplesShowNoDifference) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({5, 5, 5}, {5, 5, 5}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2, 3}, {1, 2, 3}).p_value, 1.0);
}

TEST(MannWhitney, TooFewRepetitionsCannotReachSignificance) {
  EXPECT_GE(mann_whitney_min_p(3, 3), 0.05);  // 2 / 20 = 0.1
  EXPECT_LT(mann_whitney_min_p(4, 4), 0.05);  // 2 / 70
}

TEST(PowerCheck, AsksWhetherTheCountsCanReachTheLevelAtAll) {
  EXPECT_FALSE(can_reach_significance(3, 3));
  EXPECT_TRUE(can_reach_significance(4, 4));
  EXPECT_FALSE(can_reach_significance(0, 10)) << "an empty side decides nothing";
  EXPECT_FALSE(can_reach_significance(4, 4, 0.05 / 3)) << "Bonferroni over 3: 2 / 70 > 0.0167";
  EXPECT_TRUE(can_reach_significance(5, 5, 0.05 / 3));  // 2 / 252
}

// The one vocabulary (try, replay, advise, compare, the report) and its one-word form for compact
// tables: the same verdict, never a different one.
TEST(VerdictWords, TheOneWordFormNamesTheSameVerdict) {
  struct example {
    difference d;
    interval range;
    const char* words;
    const char* word;
  };
  const example examples[] = {
      {difference::higher, {1.10, 1.20}, "decided faster", "faster"},
      {difference::lower, {0.80, 0.90}, "decided slower", "slower"},
      {difference::inside_noise, {0.99, 1.02}, "the same within ±3 %", "same"},
      {difference::inside_noise, {1.005, 1.02}, "the same within ±3 %", "same"},
      {difference::inside_noise, {0.90, 1.20}, "open (inconclusive)", "open"},
      {difference::too_few, {0.99, 1.01}, "open (too few runs)", "open"},
  };
  for (const example& e : examples) {
    EXPECT_EQ(verdict_words(e.d, e.range, 0.03, "faster", "slower"), e.words);
    EXPECT_EQ(verdict_word(e.d, e.range, 0.03, "faster", "slower"), e.word) << e.words;
  }
}

// A seed claim's verdict (judge_claim) stands on the lab's difference rule: inside the accepted
// range is reproduced only when, for a range that excludes 1, judge_difference decides the same
// direction; a range that holds 1 (a sameness claim) is reproduced like an equivalence, on the
// interval alone, and so is a stop-rule interval (no U test: its confidence holds the rule).
TEST(ClaimVerdict, ReproducedOnlyOnADifferenceTheOneRuleDecides) {
  const accepted_range faster{1.2, 1.8}, same{0.95, 1.05};
  const difference_test decided{0.01, true}, noise{0.2, true}, powerless{0.1, false};
  EXPECT_EQ(judge_claim({1.3, 1.6}, faster, decided), claim_finding::reproduced);
  EXPECT_EQ(judge_claim({1.3, 1.6}, faster, noise), claim_finding::inconclusive);
  EXPECT_EQ(judge_claim({1.3, 1.6}, faster, powerless), claim_finding::inconclusive);
  EXPECT_EQ(judge_claim({1.3, 1.6}, faster, std::nullopt), claim_finding::reproduced);
  EXPECT_EQ(judge_claim({0.98, 1.03}, same, noise), claim_finding::reproduced);
  EXPECT_EQ(judge_claim({1.9, 2.5}, faster, decided), claim_finding::refuted);
  EXPECT_EQ(judge_claim({0.8, 1.1}, faster, noise), claim_finding::refuted);
  EXPECT_EQ(judge_claim({1.0, 1.5}, faster, decided), claim_finding::inconclusive);
  EXPECT_EQ(judge_claim({}, faster, decided), claim_finding::inconclusive);
  // Wherever a difference claim is reproduced, judge_difference decided it.
  for (double low = 0.5; low < 2.5; low += 0.1)
    for (double width : {0.05, 0.3, 1.0})
      for (const difference_test& t : {decided, noise, powerless}) {
        const interval measured{low, low + width};
        for (const accepted_range& range : {faster, accepted_range{0.4, 0.9}})
          if (judge_claim(measured, range, t) == claim_finding::reproduced) {
            const difference d = judge_difference(t.p_value, t.has_power, measured);
            EXPECT_TRUE(d == difference::higher || d == difference::lower) << low << " " << width;
          }
      }
  // A ranking: decided by the U test between the first two, as a difference is.
  EXPECT_EQ(judge_ranking(true, decided), claim_finding::reproduced);
  EXPECT_EQ(judge_ranking(false, decided), claim_finding::refuted);
  EXPECT_EQ(judge_ranking(true, noise), claim_finding::inconclusive);
  EXPECT_EQ(judge_ranking(false, {0.01, false}), claim_finding::inconclusive);
  EXPECT_STREQ(to_string(claim_finding::reproduced), "reproduced");
  EXPECT_STREQ(to_string(claim_finding::refuted), "refuted");
  EXPECT_STREQ(to_string(claim_finding::inconclusive), "inconclusive");
}

}  // namespace
}  // namespace alloclab::lab
