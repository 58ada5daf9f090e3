// `alloclab try` judges its looks and its final intervals with the budget's state
// (schedule/budget_state.hpp): this test pins that the numbers are the ones the rounds' former
// judge gave (each cell against the baseline with stats/sequential.hpp's compare_paired_runs on
// the runs paired by round, "undecidable" when most runs of a side failed, decided only once the
// U test can reach p < 0.05). That judge is written out below as the reference.
//
// Test plan (fixed synthetic readings, no process, no clock):
//  - looks at several rules (early looks, the last look spending the rest) on rounds with failed
//    runs, a side that fails most runs, and a run that read 0 s: ratio, low, high and decided
//    equal the reference to 1e-12 relative;
//  - identical runs hitting the figure's resolution floor: the same widened interval;
//  - a stopper's looks (adaptive, then interrupted in the middle of a round): its outcome's
//    decided, open and failing are the reference's at each look;
//  - the final intervals compute_figures reports (CPU time and peak RSS) at the stopper's final
//    rule equal the reference's.
#include <cmath>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "frames/program/figures.hpp"
#include "frames/program/stopping.hpp"
#include "run_rows.hpp"

namespace alloclab::program {
namespace {

// The reference: the rounds' judge before it was the budget's state.
struct reference_comparison {
  lab::sequential_ratio ratio;
  bool decided = false;
  bool undecidable = false;
};

std::vector<reference_comparison> reference_look(const std::vector<lab::round_reading>& readings,
                                                 const lab::round_judged& judged,
                                                 const lab::stop_rule& rule) {
  std::vector<std::size_t> ok(judged.cells), failed(judged.cells);
  for (const auto& r : readings) ++(r.ok ? ok : failed)[r.cell];
  const auto failing = [&](std::size_t i) { return failed[i] > ok[i]; };
  std::vector<reference_comparison> out;
  for (std::size_t i = 0; i < judged.cells; ++i) {
    if (i == judged.baseline) continue;
    std::map<std::size_t, std::pair<const double*, const double*>> rounds;
    for (const auto& r : readings) {
      if (!r.ok) continue;
      if (r.cell == i) rounds[r.round].first = &r.value;
      if (r.cell == judged.baseline) rounds[r.round].second = &r.value;
    }
    std::vector<double> a, b;
    for (const auto& [round, pair] : rounds)
      if (pair.first != nullptr && pair.second != nullptr) {
        a.push_back(*pair.first);
        b.push_back(*pair.second);
      }
    reference_comparison c;
    c.ratio = lab::compare_paired_runs(a, b, rule, judged.resolution);
    c.undecidable = failing(i) || failing(judged.baseline);
    c.decided = lab::can_reach_significance(ok[i], ok[judged.baseline]) &&
                lab::decided(c.ratio, noise_boundaries(judged.noise_floor));
    out.push_back(c);
  }
  return out;
}

// The path under test: the rounds' look as `alloclab try` takes it.
std::vector<reference_comparison> look_now(const std::vector<lab::round_reading>& readings,
                                           const lab::round_judged& judged,
                                           const lab::stop_rule& rule) {
  std::vector<reference_comparison> out;
  for (const auto& c : lab::judge_rounds(readings, judged, rule).comparisons)
    out.push_back({c.ratio, c.decided, c.undecidable});
  return out;
}

void expect_same_number(double expected, double actual, const char* what) {
  if (std::isinf(expected) || expected == 0) {
    EXPECT_EQ(expected, actual) << what;
    return;
  }
  EXPECT_NEAR(actual / expected, 1.0, 1e-12) << what << ": " << expected << " vs " << actual;
}

void expect_same_ratio(const lab::sequential_ratio& expected, const lab::sequential_ratio& actual) {
  expect_same_number(expected.value, actual.value, "ratio");
  expect_same_number(expected.low, actual.low, "low");
  expect_same_number(expected.high, actual.high, "high");
}

void expect_same_look(const std::vector<lab::round_reading>& readings,
                      const lab::round_judged& judged, const lab::stop_rule& rule) {
  const auto expected = reference_look(readings, judged, rule);
  const auto actual = look_now(readings, judged, rule);
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("comparison " + std::to_string(i) + " at look " + std::to_string(rule.look));
    expect_same_ratio(expected[i].ratio, actual[i].ratio);
    EXPECT_EQ(expected[i].decided, actual[i].decided);
    EXPECT_EQ(expected[i].undecidable, actual[i].undecidable);
  }
}

run_row run(std::size_t round, std::size_t combination, double cpu, double rss, bool ok = true) {
  return synthetic_run(round, combination, cpu, rss, ok);
}

// Four combinations over `rounds` rounds: baseline, 0.8x, 1.02x (on the floor) and one that
// fails most of its runs; the 1.02x one fails rounds 1 and 4, the baseline round 6, and the
// 0.8x one reads 0 s in round 2 (a run too short for the clock).
std::vector<run_row> mixed_rounds(std::size_t rounds, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> noise(0, 0.02);
  const std::vector<double> truth{1.0, 0.8, 1.02, 1.1};
  std::vector<run_row> rows;
  for (std::size_t r = 0; r < rounds; ++r)
    for (std::size_t c = 0; c < truth.size(); ++c) {
      const double cpu = 0.5 * truth[c] * std::exp(noise(engine));
      const double rss = 4e6 * truth[c] * std::exp(noise(engine));
      const bool ok =
          !((c == 2 && (r == 1 || r == 4)) || (c == 0 && r == 6) || (c == 3 && r % 3 != 0));
      rows.push_back(run(r, c, c == 1 && r == 2 ? 0.0 : cpu, rss, ok));
    }
  return rows;
}

const std::vector<variant> four{
    {"glibc", {}}, {"jemalloc", {}}, {"mimalloc", {}}, {"tcmalloc", {}}};

lab::round_judged judged_of(const std::vector<variant>& combinations, double resolution) {
  lab::round_judged j = judged_cpu(combinations, 0.03);
  j.resolution = resolution;
  return j;
}

TEST(TryJudgeEquivalence, LooksOnMixedRoundsEqualTheReference) {
  const auto plan = adaptive_stopping(3, 40, 300);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto rows = mixed_rounds(12, seed);
    for (std::size_t look = 1; look <= 4; ++look)
      for (const bool last : {false, true}) {
        const lab::stop_rule rule =
            last ? plan.rule_at(look).spending_the_rest() : plan.rule_at(look);
        expect_same_look(readings_of(rows, cpu_seconds_of), judged_of(four, cpu_resolution_seconds),
                         rule);
        expect_same_look(readings_of(rows, peak_rss_of), judged_of(four, rss_resolution_bytes),
                         rule);
      }
  }
}

TEST(TryJudgeEquivalence, IdenticalRunsGetTheSameResolutionFloor) {
  std::vector<run_row> rows;
  for (std::size_t r = 0; r < 8; ++r) {
    rows.push_back(run(r, 0, 0.010, 1024 * 1000));
    rows.push_back(run(r, 1, 0.011, 1024 * 1000));
    rows.push_back(run(r, 2, 0.010, 1024 * 1003));
  }
  const std::vector<variant> three{four.begin(), four.begin() + 3};
  const lab::stop_rule rule = adaptive_stopping(4, 40, 300).rule_at(2);
  const auto cpu = judged_of(three, cpu_resolution_seconds);
  const auto rss = judged_of(three, rss_resolution_bytes);
  expect_same_look(readings_of(rows, cpu_seconds_of), cpu, rule);
  expect_same_look(readings_of(rows, peak_rss_of), rss, rule);
  // The floor is what makes these intervals: without it they would have no width.
  const auto floored = reference_look(readings_of(rows, cpu_seconds_of), cpu, rule);
  EXPECT_LT(floored.at(0).ratio.low, floored.at(0).ratio.value);
  EXPECT_GT(floored.at(0).ratio.high, floored.at(0).ratio.value);
}

// The stopper's outcome after a look, as the reference sees that look (the labels open and
// failing are named once the rounds `stopped`).
void expect_outcome_as_reference(const lab::stopping_outcome& outcome,
                                 const std::vector<lab::round_reading>& readings,
                                 const lab::round_judged& judged, const lab::stop_rule& rule,
                                 bool stopped) {
  const auto expected = reference_look(readings, judged, rule);
  std::size_t decided = 0;
  std::vector<std::string> open, failing;
  for (std::size_t i = 0, cell = 0; i < expected.size(); ++i, ++cell) {
    if (cell == judged.baseline) ++cell;
    decided += expected[i].decided && !expected[i].undecidable;
    if (expected[i].undecidable)
      failing.push_back(judged.labels.at(cell));
    else if (!expected[i].decided)
      open.push_back(judged.labels.at(cell));
  }
  EXPECT_EQ(outcome.compared, expected.size());
  EXPECT_EQ(outcome.decided, decided);
  if (!stopped) return;
  EXPECT_EQ(outcome.open, open);
  EXPECT_EQ(outcome.failing, failing);
  EXPECT_FALSE(open.empty());
  EXPECT_FALSE(failing.empty());
}

// The final intervals compute_figures reports at `rule` equal the reference's.
void expect_figures_as_reference(const std::vector<run_row>& rows, const lab::stop_rule& rule) {
  const program_figures f = compute_figures(four, rows, false, 0.03, rule);
  for (const bool cpu : {true, false}) {
    const auto judged = judged_of(four, cpu ? cpu_resolution_seconds : rss_resolution_bytes);
    const auto expected =
        reference_look(readings_of(rows, cpu ? cpu_seconds_of : peak_rss_of), judged, rule);
    for (std::size_t i = 1; i < four.size(); ++i) {
      SCOPED_TRACE((cpu ? "cpu of " : "rss of ") + std::to_string(i));
      const auto& figure = cpu ? f.combinations[i].cpu : f.combinations[i].peak_rss;
      ASSERT_TRUE(figure.has_value());
      const lab::sequential_ratio& r = expected[i - 1].ratio;
      expect_same_number(r.value, figure->value, "ratio");
      if (r.bounded()) {
        expect_same_number(r.low, figure->range.low, "low");
        expect_same_number(r.high, figure->range.high, "high");
      }
      EXPECT_EQ(figure->decided, std::optional(expected[i - 1].decided));
    }
  }
}

TEST(TryJudgeEquivalence, AnInterruptedStopperAndItsFiguresEqualTheReference) {
  const auto plan = adaptive_stopping(3, 40, 1e6);
  const auto judged = judged_of(four, cpu_resolution_seconds);
  round_stopper stopper(plan, judged);
  const std::vector<run_row> all = mixed_rounds(8, 7);
  std::vector<run_row> rows;
  std::size_t rounds = 0;
  // Rounds 1-5 run whole (looks after 3 and 5), then round 6 is cut short after two runs.
  while (rounds < 5) {
    for (const run_row& r : all)
      if (r.round == rounds) rows.push_back(r);
    ++rounds;
    const std::size_t looks = stopper.outcome().looks_taken;
    ASSERT_TRUE(stopper.another_round(readings_of(rows, cpu_seconds_of), rounds, 1.0));
    if (stopper.outcome().looks_taken != looks)
      expect_outcome_as_reference(stopper.outcome(), readings_of(rows, cpu_seconds_of), judged,
                                  stopper.final_rule(), false);
  }
  EXPECT_EQ(stopper.outcome().looks_taken, 2u);
  rows.push_back(all.at(5 * four.size()));
  rows.push_back(all.at(5 * four.size() + 1));
  stopper.interrupted(readings_of(rows, cpu_seconds_of), rounds, 2);
  EXPECT_EQ(stopper.outcome().looks_taken, 3u);
  EXPECT_TRUE(stopper.final_rule().last_look);
  expect_outcome_as_reference(stopper.outcome(), readings_of(rows, cpu_seconds_of), judged,
                              stopper.final_rule(), true);
  expect_figures_as_reference(rows, stopper.final_rule());
}

TEST(TryJudgeEquivalence, FiguresAtEveryLookEqualTheReference) {
  const auto plan = adaptive_stopping(3, 40, 300);
  const auto rows = mixed_rounds(10, 11);
  for (std::size_t look = 1; look <= 3; ++look)
    expect_figures_as_reference(rows, plan.rule_at(look));
}

}  // namespace
}  // namespace alloclab::program
