#include "frames/program/stopping.hpp"

#include <algorithm>
#include <cmath>

#include "stats/stats.hpp"

namespace alloclab::program {
namespace {

lab::figures_by_process one_process_per_run(const std::vector<double>& runs) {
  lab::figures_by_process processes;
  for (double figure : runs) processes.push_back({figure});
  return processes;
}

std::vector<std::vector<double>> cpu_by_combination(const std::vector<run_row>& rows,
                                                    std::size_t combinations) {
  std::vector<std::vector<double>> cpu(combinations);
  for (const run_row& row : rows)
    if (row.record.ok && row.combination < combinations)
      cpu[row.combination].push_back(row.record.figures.cpu_seconds());
  return cpu;
}

}  // namespace

lab::stop_rule stopping_plan::rule_at(std::size_t look) const {
  lab::stop_rule rule = lab::rule_with_looks(adaptive ? look_rounds.size() : 1);
  return rule.at_look(adaptive ? look : 1);
}

stopping_plan fixed_stopping(std::size_t rounds) {
  stopping_plan plan;
  plan.min_rounds = plan.max_rounds = rounds;
  return plan;
}

stopping_plan adaptive_stopping(std::size_t min_rounds, std::size_t max_rounds,
                                double budget_seconds) {
  stopping_plan plan;
  plan.adaptive = true;
  plan.min_rounds = std::max<std::size_t>(2, min_rounds);
  plan.max_rounds = std::max(plan.min_rounds, max_rounds);
  plan.budget_seconds = budget_seconds;
  for (std::size_t r = plan.min_rounds; r < plan.max_rounds; r += (r + 1) / 2)
    plan.look_rounds.push_back(r);
  plan.look_rounds.push_back(plan.max_rounds);
  return plan;
}

std::vector<double> noise_boundaries(double noise_floor) {
  return {1 / (1 + noise_floor), 1 + noise_floor};
}

lab::pooled_between pool_runs(const std::vector<std::vector<double>>& per_combination) {
  std::vector<lab::process_spread> spreads;
  for (const auto& runs : per_combination)
    spreads.push_back(lab::spread_of(one_process_per_run(runs)));
  return lab::pool_between(spreads);
}

lab::sequential_ratio sequential_vs_baseline(const std::vector<double>& candidate,
                                             const std::vector<double>& baseline,
                                             const lab::pooled_between& pool,
                                             const lab::stop_rule& rule) {
  // compare_levels gives first / second: the candidate's level over the baseline's.
  return lab::compare_levels(lab::spread_of(one_process_per_run(candidate)), pool,
                             lab::spread_of(one_process_per_run(baseline)), pool, rule);
}

std::size_t look_state::open() const {
  return static_cast<std::size_t>(std::count_if(
      comparisons.begin(), comparisons.end(), [](const comparison_look& c) { return !c.decided; }));
}

look_state look_at(const std::vector<run_row>& rows, std::size_t combinations, std::size_t baseline,
                   const lab::stop_rule& rule, double noise_floor) {
  look_state look;
  look.look = rule.look;
  const auto cpu = cpu_by_combination(rows, combinations);
  const lab::pooled_between pool = pool_runs(cpu);
  const std::vector<double> boundaries = noise_boundaries(noise_floor);
  for (std::size_t i = 0; i < combinations; ++i) {
    if (i == baseline) continue;
    comparison_look c;
    c.combination = i;
    c.cpu = sequential_vs_baseline(cpu[i], cpu[baseline], pool, rule);
    // The verdict needs the U test too: undecided while its counts cannot reach p < alpha.
    const bool testable =
        !cpu[i].empty() && !cpu[baseline].empty() &&
        lab::mann_whitney_min_p(cpu[i].size(), cpu[baseline].size()) < lab::significance_alpha;
    c.decided = testable && lab::decided(c.cpu, boundaries);
    look.comparisons.push_back(c);
  }
  return look;
}

round_stopper::round_stopper(stopping_plan plan, std::size_t combinations, std::size_t baseline,
                             double noise_floor, std::vector<std::string> labels)
    : plan_(std::move(plan)),
      combinations_(combinations),
      baseline_(baseline),
      noise_floor_(noise_floor),
      labels_(std::move(labels)) {}

bool round_stopper::finish(std::string reason, const look_state* last) {
  outcome_.stopped_because = std::move(reason);
  outcome_.open.clear();
  if (last != nullptr)
    for (const comparison_look& c : last->comparisons)
      if (!c.decided) outcome_.open.push_back(labels_.at(c.combination));
  return false;
}

bool round_stopper::another_round(const std::vector<run_row>& rows, std::size_t completed,
                                  double elapsed_seconds) {
  outcome_.rounds = completed;
  if (!plan_.adaptive)
    return completed < plan_.max_rounds || finish("the fixed number of rounds", nullptr);
  if (completed < plan_.min_rounds) return true;
  // Another round is affordable when the mean round so far fits in what is left.
  const double round_seconds = elapsed_seconds / static_cast<double>(completed);
  const bool budget_spent = elapsed_seconds + round_seconds > plan_.budget_seconds;
  const bool planned_look = std::find(plan_.look_rounds.begin(), plan_.look_rounds.end(),
                                      completed) != plan_.look_rounds.end();
  const bool last_round = completed >= plan_.max_rounds;
  if (!planned_look && !budget_spent && !last_round) return true;
  // Never more looks than planned: each look spends its own share of alpha.
  if (outcome_.looks_taken >= plan_.look_rounds.size())
    return finish("every planned look taken", nullptr);
  const look_state look =
      look_at(rows, combinations_, baseline_, plan_.rule_at(++outcome_.looks_taken), noise_floor_);
  outcome_.compared = look.comparisons.size();
  outcome_.decided = outcome_.compared - look.open();
  if (look.open() == 0) return finish("every comparison decided", &look);
  if (last_round) return finish("the maximum number of rounds", &look);
  if (budget_spent) return finish("the budget spent", &look);
  return true;
}

lab::stop_rule round_stopper::final_rule() const {
  return plan_.rule_at(std::max<std::size_t>(1, outcome_.looks_taken));
}

}  // namespace alloclab::program
