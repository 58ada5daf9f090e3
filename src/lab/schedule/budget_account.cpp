#include "schedule/budget_account.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plan/budget.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json cell_name(const cell_spec& c) {
  return {{"frame", to_string(c.frame)},
          {"workload", c.workload},
          {"strategy", c.strategy},
          {"malloc", c.malloc.label}};
}

// The figure a cell's spread is reported on: what its vs-baseline comparison is judged on.
const char* headline_figure(const cell_spec& c) {
  switch (c.frame) {
    case frame::heap:
      return "ns_per_pair";
    case frame::serve:
      return "cpu_per_request";
    default:
      return "p50";
  }
}

// Per cell: processes, repetitions, samples per repetition, seconds, and its spread split.
json cells_json(const account_input& in) {
  std::vector<std::size_t> samples(in.plan.cells.size(), 0), repetitions(in.plan.cells.size(), 0);
  for (std::size_t i = 0; i < in.records.size(); ++i) {
    const measurement_record& r = in.records[i];
    if (!r.batch || r.status != "ok") continue;
    samples[in.ran[i].cell] += r.batch->cell.samples_ns.size();
    repetitions[in.ran[i].cell] += r.batch->cell.repetition_medians_ns.size();
  }
  json cells = json::array();
  for (std::size_t i = 0; i < in.plan.cells.size(); ++i) {
    const cell_spec& c = in.plan.cells[i];
    const process_spread s = in.state.spread(i, headline_figure(c));
    json cell = cell_name(c);
    cell["placement_twin"] = c.copy_cliff_removed;
    cell["processes"] = in.state.processes(i);
    cell["repetitions"] = s.repetitions;
    cell["samples_per_repetition"] =
        repetitions[i] > 0 ? json(samples[i] / repetitions[i]) : json(nullptr);
    cell["seconds"] = in.state.seconds_per_process(i) * static_cast<double>(in.state.processes(i));
    cell["figure"] = headline_figure(c);
    const bool spread_known = s.processes > 1;
    cell["between_cv"] = spread_known ? json(std::sqrt(s.between)) : json(nullptr);
    cell["within_cv"] = s.valid() && s.within_df > 0 ? json(std::sqrt(s.within)) : json(nullptr);
    cell["spread"] = !spread_known                ? "unknown (one process)"
                     : s.between >= s.within_part ? "between processes"
                                                  : "within processes";
    cells.push_back(std::move(cell));
  }
  return cells;
}

json comparison_json(const account_input& in, const comparison_look& l) {
  const tracked_comparison& c = *l.comparison;
  const sequential_ratio& r = l.ratio;
  const char* state = l.unmeasurable ? "unmeasurable" : l.decided ? "decided" : "open";
  return {
      {"id", c.id},
      {"kind", c.kind},
      {"metric", c.metric},
      {"base", cell_name(in.plan.cells.at(c.base))},
      {"candidate", cell_name(in.plan.cells.at(c.candidate))},
      {"boundaries", c.boundaries},
      {"value", r.value > 0 ? json(r.value) : json(nullptr)},
      {"low", r.bounded() ? json(r.low) : json(nullptr)},
      {"high", r.bounded() ? json(r.high) : json(nullptr)},
      {"df", r.bounded() ? json(r.df) : json(nullptr)},
      {"processes", {in.state.processes(c.base), in.state.processes(c.candidate)}},
      {"state", state},
      {"processes_needed", l.decided || l.unmeasurable ||
                                   l.processes_needed == std::numeric_limits<std::size_t>::max() ||
                                   l.processes_needed == 0
                               ? json(nullptr)
                               : json(l.processes_needed)}};
}

}  // namespace

std::size_t likely_decided_with(const budget_state& state,
                                const std::vector<comparison_look>& looks, double extra_seconds,
                                std::size_t max_processes) {
  std::vector<double> costs;
  for (const comparison_look& l : looks) {
    if (l.decided || l.unmeasurable) continue;
    if (l.processes_needed == 0 || l.processes_needed > max_processes) continue;
    costs.push_back(state.seconds_to_decide(l));
  }
  std::sort(costs.begin(), costs.end());
  std::size_t decided = 0;
  for (double cost : costs) {
    if (!(cost <= extra_seconds)) break;
    extra_seconds -= cost;
    ++decided;
  }
  return decided;
}

json budget_account(const account_input& in) {
  const stop_rule& rule = in.state.rule();
  json comparisons = json::array();
  std::size_t decided = 0, open = 0, unmeasurable = 0;
  for (const comparison_look& l : in.looks) {
    decided += l.decided;
    open += !l.decided && !l.unmeasurable;
    unmeasurable += l.unmeasurable;
    comparisons.push_back(comparison_json(in, l));
  }
  json rounds = json::array();
  for (const round_account& r : in.rounds)
    rounds.push_back({{"look", r.look},
                      {"processes", r.processes},
                      {"elapsed_seconds", r.elapsed_seconds},
                      {"decided", r.decided},
                      {"open", r.open}});
  const double budget = in.plan.sizes.budget_seconds;
  json more = nullptr;
  if (in.mode == "budget" && open > 0) {
    const double bigger = 3 * budget;
    more = {
        {"budget_seconds", bigger},
        {"would_likely_decide", likely_decided_with(in.state, in.looks, bigger - in.spent_seconds,
                                                    max_processes_for(bigger))},
        {"of_open", open}};
  }
  return {{"mode", in.mode},
          {"budget_seconds", in.mode == "budget" ? json(budget) : json(nullptr)},
          {"spent_seconds", in.spent_seconds},
          {"repetition_ms",
           in.plan.sizes.repetition_ms > 0 ? json(in.plan.sizes.repetition_ms) : json(nullptr)},
          {"stop_rule",
           {{"name", stop_rule_name},
            {"looks", rule.looks},
            {"alpha", rule.alpha},
            {"confidence", rule.confidence()},
            {"prior_df", rule.prior_df},
            {"simulation",
             "false verdicts <= 5 % on synthetic cells with known ratios "
             "(tests/lab/budget_simulation_test.cpp; docs/budget.md)"}}},
          {"stopped", in.stopped},
          {"processes", in.ran.size()},
          {"rounds", rounds},
          {"decided", decided},
          {"open", open},
          {"unmeasurable", unmeasurable},
          {"more_budget", more},
          {"cells", cells_json(in)},
          {"comparisons", comparisons}};
}

}  // namespace alloclab::lab
