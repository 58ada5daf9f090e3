// The budget scheduler's state (schedule/budget_state.hpp) by hand: what a look's interval is
// built from. Its error rate over many runs is simulated in budget_simulation_test.cpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "schedule/budget_state.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

std::map<std::string, std::vector<double>> process(std::vector<double> p50) {
  return {{"p50", std::move(p50)}};
}

// Three cells of one workload; `wide` has a large spread between its two processes, the others
// small ones.
struct three_cells {
  budget_state state{{{0, 2, 8, 3, 12}, {0, 2, 8, 3, 12}, {0, 2, 8, 3, 12}}, rule_with_looks(4)};
  std::vector<figures_by_process> figures = {{{100, 101, 99}, {110, 111, 109}},
                                             {{80, 81, 79}, {81, 82, 80}},
                                             {{50, 51, 49}, {50.5, 51.5, 49.5}}};
  three_cells() {
    for (std::size_t c = 0; c < figures.size(); ++c)
      for (const auto& p : figures[c]) state.add_process(c, process(p), 1);
  }
};

// The moderation's prior is what the *other* cells of the group say: a cell's own spread between
// processes enters its variance once, through its own degrees of freedom, not again through the
// pool (that would count it twice and pull the prior toward it).
TEST(BudgetState, TheModerationPoolLeavesTheCellItselfOut) {
  three_cells t;
  const tracked_comparison c{"wide vs narrow", "vs_std", 0, 1, "p50", {1.0}};
  const comparison_look l = t.state.judge({c}, 2).front();
  const process_spread wide = spread_of(t.figures[0]);
  const process_spread narrow = spread_of(t.figures[1]);
  const process_spread other = spread_of(t.figures[2]);
  const stop_rule rule = rule_with_looks(4).at_look(2);
  const sequential_ratio expected = compare_levels(wide, pool_between({narrow, other}), narrow,
                                                   pool_between({wide, other}), rule);
  EXPECT_NEAR(l.ratio.log_se, expected.log_se, 1e-12);
  EXPECT_NEAR(l.ratio.low, expected.low, 1e-12);
  EXPECT_NEAR(l.ratio.high, expected.high, 1e-12);
}

// A cell whose group has no other cell with two processes has no prior: its own two processes
// are its only evidence of the spread between processes.
TEST(BudgetState, ACellAloneInItsGroupHasNoPrior) {
  budget_state state{{{0, 2, 8, 3, 12}, {1, 2, 8, 3, 12}}, rule_with_looks(4)};
  state.add_process(0, process({100, 101, 99}), 1);
  state.add_process(0, process({110, 111, 109}), 1);
  state.add_process(1, process({50, 51, 49}), 1);
  state.add_process(1, process({50.5, 51.5, 49.5}), 1);
  const tracked_comparison c{"a vs b", "vs_std", 0, 1, "p50", {1.0}};
  const comparison_look l = state.judge({c}, 1).front();
  const sequential_ratio expected = compare_levels(spread_of({{100, 101, 99}, {110, 111, 109}}), {},
                                                   spread_of({{50, 51, 49}, {50.5, 51.5, 49.5}}),
                                                   {}, rule_with_looks(4).at_look(1));
  EXPECT_NEAR(l.ratio.df, expected.df, 1e-12);
  EXPECT_NEAR(l.ratio.log_se, expected.log_se, 1e-12);
}

// After the first round the cells' most processes and the rule's looks follow the budget; a
// cell measured once on purpose (the placement twin) stays at one.
TEST(BudgetState, ReplanningSetsTheMostProcessesAndTheLooks) {
  budget_state state{{{0, 2, 8, 3, 12}, {1, 5, 8, 1, 1}, {2, 1, 1, 3, 12}}, rule_with_looks(4)};
  state.replan(27);
  EXPECT_EQ(state.setup(0).max_processes, 27u);
  EXPECT_EQ(state.setup(1).max_processes, 27u);
  EXPECT_EQ(state.setup(2).max_processes, 1u);
  EXPECT_EQ(state.rule().looks, 7u);  // 2 3 5 8 12 18 27
  EXPECT_EQ(state.rule().alpha, 0.05);
  state.replan(3);
  EXPECT_EQ(state.setup(1).max_processes, 6u);  // at least one more than its first round
  EXPECT_EQ(state.rule().looks, 2u);
}

// A comparison whose candidate was picked among N is judged at alpha / N: a wider interval.
TEST(BudgetState, APickAmongCandidatesIsJudgedAtAlphaOverTheirNumber) {
  three_cells t;
  const tracked_comparison one{"one", "peer", 1, 2, "p50", {1.0}};
  tracked_comparison six = one;
  six.candidates = 6;
  const auto looks = t.state.judge({one, six}, 2);
  EXPECT_NEAR(std::log(looks[1].ratio.high / looks[1].ratio.value) /
                  std::log(looks[0].ratio.high / looks[0].ratio.value),
              t_quantile(rule_with_looks(4).at_look(2).among(6).confidence(), looks[1].ratio.df) /
                  t_quantile(rule_with_looks(4).at_look(2).confidence(), looks[0].ratio.df),
              1e-9);
  EXPECT_NEAR(1 - rule_with_looks(4).at_look(2).among(6).confidence(),
              (1 - rule_with_looks(4).at_look(2).confidence()) / 6, 1e-15);
}

// A side whose few processes happen to agree has a process variance near zero by chance, but its
// interval uses the variance moderated toward its group's: that is the variance a round must
// shrink. A shared baseline with two lucky processes must not wait while its candidate gets
// sixteen (a real run left vector_push's std cell at 2 processes beside pmr_monotonic's 16, and
// the claim's interval at [0.61-1.42]).
TEST(BudgetState, ABaselineWhoseFewProcessesAgreeByChanceStillGrows) {
  const budget_cell setup{0, 2, 27, 3, 12};
  budget_state state{{setup, setup, setup, setup}, rule_with_looks(7)};
  state.add_process(0, process({100, 100.1, 99.9}), 1);  // the baseline: two lucky processes
  state.add_process(0, process({100.05, 100.15, 99.95}), 1);
  const std::vector<double> offsets = {0.85, 1.1,  0.95, 1.2,  0.9,  1.05, 1.15, 0.8,
                                       1.0,  0.92, 1.08, 0.97, 1.12, 0.88, 1.02, 0.99};
  for (double o : offsets) state.add_process(1, process({80 * o, 80.1 * o, 79.9 * o}), 1);
  for (std::size_t c = 2; c < 4; ++c)  // the group's other cells: a spread like the candidate's
    for (double o : {0.85, 1.15, 0.95, 1.1}) state.add_process(c, process({60 * o, 60 * o}), 1);
  // Kept alive: each look points at its comparison.
  const std::vector<tracked_comparison> comparisons = {
      {"candidate vs baseline", "vs_std", 0, 1, "p50", {1.0}}};
  const auto looks = state.judge(comparisons, 5);
  ASSERT_FALSE(looks.front().decided);
  const auto round = state.plan_round(looks, 5);
  const auto grows = [&](std::size_t cell) {
    return std::any_of(round.begin(), round.end(),
                       [&](const budget_state::growth& g) { return g.cell == cell; });
  };
  EXPECT_TRUE(grows(0)) << "the baseline (2 processes) is the side the interval needs";
  EXPECT_FALSE(grows(1)) << "the candidate's 16 processes already weigh 8 times less";
}

// A paired comparison of a shared baseline (cell 0) and a candidate (cell 1): four ring runs of
// both (base / candidate 1.02, 1.05, 1.08, 1.05, three slices each), then `alone` processes of
// the baseline in rings without the candidate (it was growing for its other candidates). Up to 32
// processes a cell, 8 looks.
struct shared_baseline {
  budget_state state{{{0, 2, 32, 3, 12}, {0, 2, 32, 3, 12}}, rule_with_looks(4)};
  const std::vector<tracked_comparison> comparisons = {
      {"candidate vs baseline", "vs_std", 0, 1, "p50", {1.0}, 1, 0.02}};
  explicit shared_baseline(std::size_t alone) {
    state.replan(32);
    for (const double ratio : {1.02, 1.05, 1.08, 1.05}) {
      const std::vector<double> base = {100, 100.1, 99.9};
      const std::vector<double> candidate = {100 / ratio, 100.1 / ratio, 99.9 / ratio};
      state.add_process(0, process(base), 1);
      state.add_process(1, process(candidate), 1);
      state.add_ring({0, 1}, {process(base), process(candidate)});
    }
    for (std::size_t i = 0; i < alone; ++i) state.add_process(0, process({100, 100.2, 99.8}), 1);
  }
  std::size_t target(const std::vector<budget_state::growth>& round, std::size_t cell) const {
    for (const auto& g : round)
      if (g.cell == cell) return g.target_processes;
    return state.processes(cell);
  }
};

// A ring run counts for a paired comparison only when both sides run in it: a round grows both
// sides by the same runs, as many as the side with less room this round may take (before, the
// candidate grew to what the comparison needed while the baseline, already ahead, grew by one:
// the candidate's other processes ran without it and bought the comparison nothing).
TEST(BudgetState, APairedComparisonGrowsBothSidesByTheSameRingRuns) {
  shared_baseline t(6);  // the baseline at 10 processes, the candidate at 4
  const auto looks = t.state.judge(t.comparisons, 4);
  const comparison_look& l = looks.front();
  ASSERT_FALSE(l.decided);
  ASSERT_EQ(l.paired_runs, 4u);
  ASSERT_GT(l.processes_needed, 6u) << "needs more runs than the baseline has room for";
  ASSERT_TRUE(t.state.within_cap(l));
  const auto round = t.state.plan_round(looks, 4);
  EXPECT_EQ(t.target(round, 0) - 10, t.target(round, 1) - 4);
  EXPECT_EQ(t.target(round, 0), t.state.processes_after_look(0, 4));  // the baseline's room
  // In a top-up pass the candidate alone would gain nothing: its other side must run too.
  EXPECT_TRUE(t.state.helpful(looks, {1}).empty());
  EXPECT_EQ(t.state.helpful(looks, {0, 1}), (std::vector<std::size_t>{0, 1}));
}

// The baseline already past what this round allows (28 processes, grown for its other
// candidates): the candidate waits, since without the baseline in its rings its processes buy
// the comparison nothing (before, it grew alone toward what the comparison needed).
TEST(BudgetState, APairedComparisonWaitsWhileItsBaselineHasNoRoom) {
  shared_baseline t(24);
  const auto looks = t.state.judge(t.comparisons, 4);
  const comparison_look& l = looks.front();
  ASSERT_FALSE(l.decided);
  ASSERT_TRUE(t.state.within_cap(l)) << "within the cap on a cell, so not dropped for that";
  ASSERT_GT(l.processes_needed, l.paired_runs);
  const auto round = t.state.plan_round(looks, 4);
  EXPECT_EQ(t.target(round, 1), 4u) << "the candidate gets no process";
  EXPECT_FALSE(t.state.within_cap(l, l.processes_needed - 1));
}

}  // namespace
}  // namespace alloclab::lab
