#include "results/budget_section.hpp"

#include "model/fields.hpp"
#include "model/versions.hpp"
#include "plan/budget.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

model::budget_cell_name cell_name(const cell_spec& c) {
  return {to_string(c.frame), c.workload, c.strategy, c.malloc.label};
}

model::budget_cell cell_facts(const cell_account& a, const run_plan& plan) {
  const cell_spec& c = plan.cells.at(a.cell);
  model::budget_cell cell;
  cell.name = cell_name(c);
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

json comparison_json(const comparison_account& a, const run_plan& plan, const stop_rule& rule) {
  const tracked_comparison& c = a.comparison;
  const sequential_ratio& r = a.ratio;
  return {{"id", c.id},
          {"kind", c.kind},
          {"metric", c.metric},
          {"base", model::write_json(cell_name(plan.cells.at(c.base)))},
          {"candidate", model::write_json(cell_name(plan.cells.at(c.candidate)))},
          {"boundaries", c.boundaries},
          {"value", r.value > 0 ? json(r.value) : json(nullptr)},
          {"low", r.bounded() ? json(r.low) : json(nullptr)},
          {"high", r.bounded() ? json(r.high) : json(nullptr)},
          {"df", r.bounded() ? json(r.df) : json(nullptr)},
          {"processes", {a.base_processes, a.candidate_processes}},
          {"state", a.state},
          {"processes_needed", or_null(a.processes_needed)},
          // Picked as the best of (peers), or holding if any of (claims), this many: its interval
          // is at alpha / candidates.
          {"candidates", c.candidates},
          {"confidence", rule.among(c.candidates).confidence()}};
}

}  // namespace

json budget_json(const budget_account& a, const run_plan& plan) {
  json rounds = json::array();
  for (const round_account& r : a.rounds)
    rounds.push_back({{"look", r.look},
                      {"processes", r.processes},
                      {"elapsed_seconds", r.elapsed_seconds},
                      {"decided", r.decided},
                      {"open", r.open}});
  std::vector<model::budget_cell> cells;
  for (const cell_account& c : a.cells) cells.push_back(cell_facts(c, plan));
  json comparisons = json::array();
  for (const comparison_account& c : a.comparisons)
    comparisons.push_back(comparison_json(c, plan, a.rule));
  const json more = a.more_budget
                        ? json{{"budget_seconds", a.more_budget->budget_seconds},
                               {"would_likely_decide", a.more_budget->would_likely_decide},
                               {"of_open", a.more_budget->of_open}}
                        : json(nullptr);
  const json planned = a.after_first_round
                           ? json{{"first_round_seconds", a.after_first_round->first_round_seconds},
                                  {"seconds_left", a.after_first_round->seconds_left},
                                  {"rounds", a.after_first_round->rest.rounds},
                                  {"max_processes", a.after_first_round->rest.max_processes},
                                  {"looks", a.after_first_round->rest.looks},
                                  {"later_round_share", later_round_share}}
                           : json(nullptr);
  return {{"mode", a.mode},
          {"budget_seconds", or_null(a.budget_seconds)},
          {"spent_seconds", a.spent_seconds},
          {"repetition_ms", or_null(a.repetition_ms)},
          {"stop_rule",
           {{"name", stop_rule_name},
            {"looks", a.rule.looks},
            {"alpha", a.rule.alpha},
            {"confidence", a.rule.confidence()},
            {"prior_df", a.rule.prior_df},
            {"simulation",
             "false verdicts <= 5 % on synthetic cells with known ratios "
             "(tests/lab/budget_simulation_test.cpp; docs/budget.md)"}}},
          {"planned_after_first_round", planned},
          {"stopped", a.stopped},
          {"processes", a.processes},
          {"rounds", rounds},
          {"decided", a.decided},
          {"open", a.open},
          {"unmeasurable", a.unmeasurable},
          {"more_budget", more},
          {"cells", model::write_json(cells)},
          {"spread", model::write_json(model::workload_spreads(cells))},
          {"comparisons", comparisons}};
}

}  // namespace alloclab::lab
