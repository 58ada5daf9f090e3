#include "schedule/budget_account.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plan/budget.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

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
std::vector<cell_account> cell_accounts(const account_input& in) {
  std::vector<std::size_t> samples(in.plan.cells.size(), 0), repetitions(in.plan.cells.size(), 0);
  for (std::size_t i = 0; i < in.records.size(); ++i) {
    const measurement_record& r = in.records[i];
    if (r.status != "ok") continue;
    const sample_count n = r.figures.samples();
    samples[in.ran[i].cell] += n.samples;
    repetitions[in.ran[i].cell] += n.repetitions;
  }
  std::vector<cell_account> cells;
  for (std::size_t i = 0; i < in.plan.cells.size(); ++i) {
    const cell_spec& c = in.plan.cells[i];
    const process_spread s = in.state.spread(i, headline_figure(c));
    cell_account a;
    a.cell = i;
    a.processes = in.state.processes(i);
    a.repetitions = s.repetitions;
    if (repetitions[i] > 0) a.samples_per_repetition = samples[i] / repetitions[i];
    a.seconds = in.state.seconds_per_process(i) * static_cast<double>(a.processes);
    a.figure = headline_figure(c);
    const bool spread_known = s.processes > 1;
    if (spread_known) a.between_cv = std::sqrt(s.between);
    if (s.valid() && s.within_df > 0) a.within_cv = std::sqrt(s.within);
    a.spread = !spread_known                ? "unknown (one process)"
               : s.between >= s.within_part ? "between processes"
                                            : "within processes";
    cells.push_back(std::move(a));
  }
  return cells;
}

comparison_account comparison_of(const account_input& in, const comparison_look& l) {
  comparison_account a;
  a.comparison = *l.comparison;
  a.ratio = l.ratio;
  a.state = l.unmeasurable ? "unmeasurable" : l.decided ? "decided" : "open";
  a.base_processes = in.state.processes(l.comparison->base);
  a.candidate_processes = in.state.processes(l.comparison->candidate);
  const bool known =
      l.processes_needed != 0 && l.processes_needed != std::numeric_limits<std::size_t>::max();
  if (!l.decided && !l.unmeasurable && known) a.processes_needed = l.processes_needed;
  a.paired_runs = l.paired_runs;
  return a;
}

}  // namespace

std::size_t likely_decided_with(const budget_state& state,
                                const std::vector<comparison_look>& looks, double extra_seconds,
                                std::size_t max_processes) {
  std::vector<double> costs;
  for (const comparison_look& l : looks) {
    if (l.decided || l.unmeasurable) continue;
    if (l.processes_needed == 0 || !state.within_cap(l, max_processes)) continue;
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

stop_rule rule_at_final_look(const stop_rule& rule, const std::vector<round_account>& rounds) {
  return rounds.empty() ? rule : rule.at_look(rounds.back().look).spending_the_rest();
}

budget_account make_account(const account_input& in) {
  budget_account a;
  a.mode = in.mode;
  if (in.mode == "budget") a.budget_seconds = in.plan.sizes.budget_seconds;
  a.spent_seconds = in.spent_seconds;
  if (in.plan.sizes.repetition_ms > 0) a.repetition_ms = in.plan.sizes.repetition_ms;
  a.rule = rule_at_final_look(in.state.rule(), in.rounds);
  a.stopped = in.stopped;
  a.processes = in.ran.size();
  a.rounds = in.rounds;
  for (const comparison_look& l : in.looks) {
    a.decided += l.decided;
    a.open += !l.decided && !l.unmeasurable;
    a.unmeasurable += l.unmeasurable;
    a.comparisons.push_back(comparison_of(in, l));
  }
  if (in.mode == "budget" && a.open > 0) {
    const double bigger = 3 * in.plan.sizes.budget_seconds;
    a.more_budget =
        budget_account::more{bigger,
                             likely_decided_with(in.state, in.looks, bigger - in.spent_seconds,
                                                 max_processes_for(bigger)),
                             a.open};
  }
  if (in.after_first_round != nullptr) a.after_first_round = *in.after_first_round;
  a.cells = cell_accounts(in);
  return a;
}

}  // namespace alloclab::lab
