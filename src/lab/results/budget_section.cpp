#include "results/budget_section.hpp"

#include "model/versions.hpp"
#include "plan/budget.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

model::budget_cell_name budget_cell_name_of(const cell_spec& c) {
  return {to_string(c.frame), c.workload, c.strategy, c.malloc.label};
}

model::stop_rule_facts stop_rule_facts(const stop_rule& rule) {
  model::stop_rule_facts out;
  out.name = stop_rule_name;
  out.looks = rule.looks;
  out.alpha = rule.alpha;
  out.confidence = rule.confidence();
  out.prior_df = rule.prior_df;
  out.simulation =
      "false verdicts <= 5 % on synthetic cells with known ratios "
      "(tests/lab/budget_simulation_test.cpp; docs/budget.md)";
  return out;
}

namespace {

model::budget_cell cell_facts(const cell_account& a, const run_plan& plan) {
  const cell_spec& c = plan.cells.at(a.cell);
  model::budget_cell cell;
  cell.name = budget_cell_name_of(c);
  cell.placement_twin = c.copy_cliff_removed;
  cell.processes = a.processes;
  cell.repetitions = a.repetitions;
  cell.samples_per_repetition = a.samples_per_repetition;
  cell.seconds = a.seconds;
  cell.figure = a.figure;
  cell.between_cv = a.between_cv;
  cell.within_cv = a.within_cv;
  cell.spread = a.spread;
  return cell;
}

// The answer in words: for a ratio against 1 which side is faster or that they are the same
// within the margin; for a claim's range only decided or open.
std::string verdict_of(const comparison_account& a) {
  if (a.state != "decided") return a.state;
  const auto& b = a.comparison.boundaries;
  if (b.size() != 1 || b.front() != 1.0) return "decided";
  return to_string(judge_ratio_interval(a.ratio.low, a.ratio.high, a.comparison.margin));
}

model::budget_comparison comparison_facts(const comparison_account& a, const run_plan& plan,
                                          const stop_rule& rule) {
  const tracked_comparison& c = a.comparison;
  const sequential_ratio& r = a.ratio;
  model::budget_comparison out;
  out.id = c.id;
  out.kind = c.kind;
  out.metric = c.metric;
  out.base = budget_cell_name_of(plan.cells.at(c.base));
  out.candidate = budget_cell_name_of(plan.cells.at(c.candidate));
  out.boundaries = c.boundaries;
  if (r.value > 0) out.value = r.value;
  if (r.bounded()) {
    out.low = r.low;
    out.high = r.high;
    out.df = r.df;
  }
  out.processes = {a.base_processes, a.candidate_processes};
  out.state = a.state;
  out.processes_needed = a.processes_needed;
  // Picked as the best of (peers), or holding if any of (claims), this many: its interval is at
  // alpha / candidates.
  out.candidates.emplace(c.candidates);
  out.confidence.emplace(rule.among(c.candidates).confidence());
  out.paired_runs.emplace(a.paired_runs);
  if (c.margin > 0) out.margin.emplace(c.margin);
  out.verdict.emplace(verdict_of(a));
  return out;
}

std::optional<model::planned_rest> planned_rest(const budget_account& a) {
  if (!a.after_first_round) return std::nullopt;
  model::planned_rest out;
  out.first_round_seconds = a.after_first_round->first_round_seconds;
  out.seconds_left = a.after_first_round->seconds_left;
  out.rounds = a.after_first_round->rest.rounds;
  out.max_processes = a.after_first_round->rest.max_processes;
  out.looks = a.after_first_round->rest.looks;
  out.later_round_share = later_round_share;
  return out;
}

}  // namespace

model::budget_facts budget_facts(const budget_account& a, const run_plan& plan) {
  model::budget_facts out;
  out.mode = a.mode;
  out.budget_seconds = a.budget_seconds;
  out.spent_seconds = a.spent_seconds;
  out.repetition_ms = a.repetition_ms;
  out.stop_rule = stop_rule_facts(a.rule);
  out.planned_after_first_round.emplace(planned_rest(a));
  out.stopped = a.stopped;
  out.processes = a.processes;
  for (const round_account& r : a.rounds) {
    model::budget_round round;
    round.look = r.look;
    round.processes = r.processes;
    round.elapsed_seconds = r.elapsed_seconds;
    round.decided = r.decided;
    round.open = r.open;
    out.rounds.push_back(round);
  }
  out.decided = a.decided;
  out.open = a.open;
  out.unmeasurable = a.unmeasurable;
  if (a.more_budget) {
    model::more_budget_facts more;
    more.budget_seconds = a.more_budget->budget_seconds;
    more.would_likely_decide = a.more_budget->would_likely_decide;
    more.of_open = a.more_budget->of_open;
    out.more_budget = more;
  }
  for (const cell_account& c : a.cells) out.cells.push_back(cell_facts(c, plan));
  out.spread.emplace(model::workload_spreads(out.cells));
  for (const comparison_account& c : a.comparisons)
    out.comparisons.push_back(comparison_facts(c, plan, a.rule));
  return out;
}

}  // namespace alloclab::lab
