// The stop rule on paired readings, by simulation (issue 37): synthetic lockstep rings whose
// members share the machine's level slice by slice (a host that is 1.6x slower in stretches, as
// docs/budget.md measured), each member with its own process offset (buffer placement) and
// repetition noise. The budget scheduler's state (schedule/budget_state.hpp) judges and grows
// them exactly as `alloclab run --budget` does with rings (add_process + add_ring per ring run).
// Fixed seeds, no clock, no process.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "plan/budget.hpp"
#include "schedule/budget_state.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

struct member {
  double level = 0;    // log figure of the cell on a quiet machine
  double between = 0;  // sd of a process's offset
  double within = 0;   // sd of a repetition around it
};

struct ring_world {
  std::vector<member> cells;
  std::vector<budget_cell> setup;
  std::vector<tracked_comparison> comparisons;
  std::vector<double> true_ratios;
};

// What sets one simulated world of rings apart from another.
struct ring_shape {
  std::vector<double> ratios;        // each group's candidates against its baseline
  double between_low, between_high;  // the between-process spread, drawn per cell
  std::size_t groups, max_processes;
};

// `shape.groups` groups of one baseline and candidates at known ratios, compared against 1 with a
// 2 % margin.
ring_world make_ring_world(const ring_shape& shape, std::mt19937_64& rng) {
  ring_world w;
  std::uniform_real_distribution<double> between(shape.between_low, shape.between_high),
      within(0.003, 0.015);
  for (std::size_t g = 0; g < shape.groups; ++g) {
    const std::size_t base = w.cells.size();
    w.cells.push_back({0, between(rng), within(rng)});
    w.setup.push_back({g, 2, shape.max_processes, 3, 12});
    for (double r : shape.ratios) {
      w.cells.push_back({-std::log(r), between(rng), within(rng)});
      w.setup.push_back({g, 2, shape.max_processes, 3, 12});
      tracked_comparison c{"c" + std::to_string(w.comparisons.size()),
                           "vs_std",
                           base,
                           w.cells.size() - 1,
                           "p50",
                           {1.0}};
      c.margin = default_equivalence_margin;
      w.comparisons.push_back(c);
      w.true_ratios.push_back(r);
    }
  }
  return w;
}

// Spreads as the A/A runs of bench/lockstep_validation.py measured them (docs/budget.md).
ring_world make_rings(std::mt19937_64& rng) {
  return make_ring_world({{1.0, 1.0, 1.0, 1.03, 0.97, 1.06, 0.9, 1.2, 1.5}, 0.001, 0.006, 3, 8},
                         rng);
}

// The host's level per repetition: 1.6x slower in stretches.
std::vector<double> host_levels(std::size_t repetitions, std::mt19937_64& rng) {
  std::bernoulli_distribution switches(0.3);
  std::vector<double> levels(repetitions);
  bool slow = std::bernoulli_distribution(0.5)(rng);
  for (double& level : levels) {
    if (switches(rng)) slow = !slow;
    level = slow ? std::log(1.6) : 0;
  }
  return levels;
}

// One ring run of `cells`. Paired: the host's level per cycle is shared by every member's slice
// of that cycle, except that a switch mid-cycle reaches some members only. Unpaired (the design
// before rings): each cell's process meets the host at a moment of its own.
void run_ring(const ring_world& w, const std::vector<std::size_t>& cells, budget_state& state,
              std::mt19937_64& rng, bool paired, double mid_cycle_share) {
  const std::size_t repetitions = 3;
  std::bernoulli_distribution mid_cycle(mid_cycle_share);
  const std::vector<double> shared = host_levels(repetitions, rng);
  std::vector<std::map<std::string, std::vector<double>>> figures;
  for (std::size_t cell : cells) {
    const std::vector<double> cycle_level = paired ? shared : host_levels(repetitions, rng);
    const member& m = w.cells[cell];
    std::normal_distribution<double> offset(0, m.between), noise(0, m.within);
    const double process = m.level + offset(rng);
    std::vector<double> slices;
    for (std::size_t k = 0; k < repetitions; ++k) {
      const double level = mid_cycle(rng) ? std::log(1.6) - cycle_level[k] : cycle_level[k];
      slices.push_back(std::exp(process + level + noise(rng)));
    }
    state.add_process(cell, {{"p50", slices}}, 1);
    figures.push_back({{"p50", slices}});
  }
  if (paired) state.add_ring(cells, figures);
}

struct paired_tally {
  std::size_t nulls = 0, nulls_called_different = 0, nulls_called_same = 0;
  std::size_t outside_margin = 0, outside_called_same = 0;
  std::size_t effects = 0, effects_decided = 0, effects_wrong_way = 0;
  std::size_t decided = 0, comparisons = 0;
};

void count(paired_tally& t, ratio_verdict v, double truth) {
  ++t.comparisons;
  t.decided += v != ratio_verdict::open;
  const bool different = v == ratio_verdict::favours_base || v == ratio_verdict::favours_candidate;
  if (truth == 1.0) {
    ++t.nulls;
    t.nulls_called_different += different;
    t.nulls_called_same += v == ratio_verdict::same_within;
    return;
  }
  if (std::abs(std::log(truth)) > std::log1p(default_equivalence_margin)) {
    ++t.outside_margin;
    t.outside_called_same += v == ratio_verdict::same_within;
  }
  ++t.effects;
  t.effects_decided += different;
  t.effects_wrong_way += (truth > 1 && v == ratio_verdict::favours_base) ||
                         (truth < 1 && v == ratio_verdict::favours_candidate);
}

// A budgeted run of rings: two ring runs per group, then a look after each round; a round runs
// the cells the open comparisons ask for, a group's together. The verdict is the first decided
// look's. A run whose budget ends at look `last_look`, before the rule's last, spends the rest of
// alpha there, as `alloclab run` does.
void run_budgeted_rings(const ring_world& w, std::mt19937_64& rng, bool paired,
                        double mid_cycle_share, paired_tally& t, std::size_t last_look) {
  budget_state state(w.setup, rule_with_looks(4));
  const auto ring_of = [&](const std::vector<std::size_t>& cells) {
    std::map<std::size_t, std::vector<std::size_t>> by_group;
    for (std::size_t c : cells) by_group[w.setup[c].group].push_back(c);
    for (const auto& [group, members] : by_group)
      run_ring(w, members, state, rng, paired, mid_cycle_share);
  };
  std::vector<std::size_t> all(w.cells.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  ring_of(all);
  ring_of(all);
  std::vector<ratio_verdict> verdict(w.comparisons.size(), ratio_verdict::open);
  const std::size_t final_look = std::min(last_look, state.rule().looks);
  for (std::size_t look = 1; look <= final_look; ++look) {
    const auto looks = state.judge(w.comparisons, look, look == final_look);
    for (std::size_t i = 0; i < looks.size(); ++i)
      if (verdict[i] == ratio_verdict::open && looks[i].decided)
        verdict[i] =
            judge_ratio_interval(looks[i].ratio.low, looks[i].ratio.high, w.comparisons[i].margin);
    const auto round = state.plan_round(looks, look);
    for (bool any = true; any;) {
      std::vector<std::size_t> pass;
      for (const auto& g : round)
        if (state.processes(g.cell) < g.target_processes) pass.push_back(g.cell);
      any = !pass.empty();
      if (any) ring_of(pass);
    }
  }
  for (std::size_t i = 0; i < verdict.size(); ++i) count(t, verdict[i], w.true_ratios[i]);
}

// `mid_cycle_share`: of the slices, those whose cycle the host's level switched in the middle of
// (a 1.6x outlier for that member alone).
paired_tally simulate(bool paired, std::uint64_t seed, std::size_t runs,
                      double mid_cycle_share = 0.02, std::size_t last_look = 4) {
  std::mt19937_64 rng(seed);
  paired_tally t;
  for (std::size_t r = 0; r < runs; ++r)
    run_budgeted_rings(make_rings(rng), rng, paired, mid_cycle_share, t, last_look);
  return t;
}

// One line of what a simulation found, for docs/budget.md.
void print(const char* what, const paired_tally& t) {
  std::printf(
      "%s: %zu comparisons, %zu decided; equal sides called different %zu of %zu, the same %zu; "
      "outside the margin called the same %zu of %zu; effects found %zu of %zu, wrong way %zu\n",
      what, t.comparisons, t.decided, t.nulls_called_different, t.nulls, t.nulls_called_same,
      t.outside_called_same, t.outside_margin, t.effects_decided, t.effects, t.effects_wrong_way);
}

double share(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Equal sides called different, sides outside the margin called the same, and effects found the
// wrong way: each in at most 5 % of its comparisons.
void expect_false_verdicts_under_five_percent(const paired_tally& t) {
  EXPECT_LE(share(t.nulls_called_different, t.nulls), 0.05)
      << t.nulls_called_different << " of " << t.nulls;
  EXPECT_LE(share(t.outside_called_same, t.outside_margin), 0.05)
      << t.outside_called_same << " of " << t.outside_margin;
  EXPECT_LE(share(t.effects_wrong_way, t.effects), 0.05) << t.effects_wrong_way;
}

TEST(PairedSimulation, FalseVerdictsStayUnderFivePercent) {
  const paired_tally t = simulate(true, 37, 150);
  print("paired, harsh", t);
  expect_false_verdicts_under_five_percent(t);
}

// A budget that ends after the second of four looks: that look spends what the two looks never
// taken would have (stop_rule::spending_the_rest), and the error rates still hold.
TEST(PairedSimulation, ARunCutShortSpendsTheRestAtItsLastLookAndStaysUnderFivePercent) {
  const paired_tally t = simulate(true, 41, 150, 0.02, 2);
  print("paired, harsh, budget ends at look 2 of 4", t);
  expect_false_verdicts_under_five_percent(t);
}

TEST(PairedSimulation, EquivalenceDecidesTheSameCells) {
  const paired_tally t = simulate(true, 38, 150, 0.002);
  // Equal sides end decided (the same within 2 %), not open, where outliers are as rare as the
  // A/A runs found them.
  print("paired, as measured", t);
  EXPECT_GE(share(t.nulls_called_same, t.nulls), 0.5) << t.nulls_called_same << " of " << t.nulls;
}

TEST(PairedSimulation, PairingDecidesMoreThanSeparateProcessesOnATwoLevelHost) {
  const paired_tally paired = simulate(true, 39, 100);
  const paired_tally unpaired = simulate(false, 39, 100);
  print("paired", paired);
  print("unpaired", unpaired);
  EXPECT_GT(share(paired.decided, paired.comparisons),
            1.5 * share(unpaired.decided, unpaired.comparisons))
      << paired.decided << " vs " << unpaired.decided << " of " << paired.comparisons;
  // Without pairs the same rule stays honest, it only decides less.
  EXPECT_LE(share(unpaired.nulls_called_different, unpaired.nulls), 0.05);
}

// Starved near-1 comparisons (docs/budget.md, "Comparisons the cap starves"): the main job's
// vector_push has a between-run spread of its ratios of about 5 % (buffer placement), so ratios
// within a few percent of 1 need more ring runs than the 32 processes a cell may get allow, while
// the shared baseline reaches its cap first. Groups of a baseline and candidates at 1, 1.01,
// 0.99, 1.06, 0.94, 1.3, a wide spread between processes, up to 32 processes a cell.
ring_world make_wide_rings(std::mt19937_64& rng) {
  return make_ring_world({{1.0, 1.01, 0.99, 1.06, 0.94, 1.3}, 0.03, 0.05, 2, 32}, rng);
}

struct starvation_tally {
  paired_tally verdicts;
  std::size_t beyond_cap = 0;     // open comparisons a look found beyond their cells' cap
  std::size_t spent_on_them = 0;  // processes the next round still gave such a candidate
  std::size_t unpaired_runs = 0;  // a candidate's processes that ran without its baseline
  std::size_t processes = 0;
};

// A budgeted run of rings as `alloclab run` plans it after a first round that affords 32
// processes a cell (8 looks), counting what the rounds spend on comparisons beyond reach.
void run_wide_rings(const ring_world& w, std::mt19937_64& rng, starvation_tally& t) {
  budget_state state(w.setup, rule_with_looks(4));
  state.replan(32);
  const auto ring_of = [&](const std::vector<std::size_t>& cells) {
    std::map<std::size_t, std::vector<std::size_t>> by_group;
    for (std::size_t c : cells) by_group[w.setup[c].group].push_back(c);
    for (const auto& [group, members] : by_group) run_ring(w, members, state, rng, true, 0.002);
  };
  std::vector<std::size_t> all(w.cells.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  ring_of(all);
  ring_of(all);
  std::vector<ratio_verdict> verdict(w.comparisons.size(), ratio_verdict::open);
  std::vector<comparison_look> looks;
  for (std::size_t look = 1; look <= state.rule().looks; ++look) {
    looks = state.judge(w.comparisons, look, look == state.rule().looks);
    for (std::size_t i = 0; i < looks.size(); ++i)
      if (verdict[i] == ratio_verdict::open && looks[i].decided)
        verdict[i] =
            judge_ratio_interval(looks[i].ratio.low, looks[i].ratio.high, w.comparisons[i].margin);
    const auto round = state.plan_round(looks, look);
    for (const comparison_look& l : looks) {
      if (l.decided || state.within_cap(l)) continue;
      ++t.beyond_cap;  // each candidate has this one comparison: it should wait
      for (const auto& g : round)
        if (g.cell == l.comparison->candidate)
          t.spent_on_them += g.target_processes - state.processes(g.cell);
    }
    for (bool any = true; any;) {
      std::vector<std::size_t> pass;
      for (const auto& g : round)
        if (state.processes(g.cell) < g.target_processes) pass.push_back(g.cell);
      any = !pass.empty();
      if (any) ring_of(pass);
    }
  }
  for (std::size_t i = 0; i < verdict.size(); ++i) count(t.verdicts, verdict[i], w.true_ratios[i]);
  for (const comparison_look& l : looks)
    t.unpaired_runs += state.processes(l.comparison->candidate) - l.paired_runs;
  for (std::size_t c = 0; c < w.cells.size(); ++c) t.processes += state.processes(c);
}

// The budget spends nothing on a comparison that cannot decide within its cells' cap, and a
// candidate never runs without the baseline it is paired with; the error rates still hold.
TEST(PairedSimulation, ComparisonsBeyondTheCapGetNoProcessesAndEveryProcessIsPaired) {
  std::mt19937_64 rng(43);
  starvation_tally t;
  for (std::size_t r = 0; r < 60; ++r) run_wide_rings(make_wide_rings(rng), rng, t);
  print("paired, wide spread, up to 32 processes", t.verdicts);
  std::printf(
      "beyond the cap at a look: %zu, processes spent on them: %zu, candidate processes "
      "without their baseline: %zu, processes: %zu\n",
      t.beyond_cap, t.spent_on_them, t.unpaired_runs, t.processes);
  ASSERT_GT(t.beyond_cap, 0u) << "the world must starve some comparisons";
  EXPECT_EQ(t.spent_on_them, 0u);
  EXPECT_EQ(t.unpaired_runs, 0u);
  expect_false_verdicts_under_five_percent(t.verdicts);
}

}  // namespace
}  // namespace alloclab::lab
