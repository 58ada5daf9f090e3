#include "simulate/results.hpp"

#include <vector>

#include "simulate/rank_agreement.hpp"

namespace alloclab::lab::simulate {

namespace {

std::optional<model::interval> timed_interval(const model::comparison& v) {
  if (v.speedup_ns_per_pair && *v.speedup_ns_per_pair)
    return v.intervals.speedup_ns_per_pair.value_or(std::nullopt);
  return v.intervals.speedup_p50;
}

// The simulated part of `cell` in `simulation`'s cells, or none.
std::optional<model::simulated_cost> simulated_of(const run_simulation& simulation,
                                                  const std::string& workload,
                                                  const model::cell& cell) {
  for (const cell_simulation& s : simulation.cells)
    if (s.workload == workload && s.strategy == cell.head.strategy && s.malloc == cell.head.malloc)
      return s.cost;
  return std::nullopt;
}

std::optional<double> cost_of(const model::simulated_cost& s) {
  if (!s.per_unit) return std::nullopt;
  return s.per_unit->cost;
}

bool is_baseline(const model::workload& w, const model::cell& c) {
  return c.head.strategy == w.baseline.strategy && c.head.malloc == w.baseline.malloc;
}

// Each cell's `simulated`, with its ratio to the workload's baseline cell.
void add_to_workload(model::workload& workload, const run_simulation& simulation) {
  std::optional<double> baseline_cost;
  for (model::cell& c : workload.cells) {
    std::optional<model::simulated_cost> s = simulated_of(simulation, workload.name, c);
    if (!s) continue;
    if (is_baseline(workload, c)) baseline_cost = cost_of(*s);
    c.simulated.emplace(std::move(*s));
  }
  for (model::cell& c : workload.cells) {
    if (!c.simulated) continue;
    model::simulated_cost& s = *c.simulated;
    const std::optional<double> cost = cost_of(s);
    s.ratio_vs_baseline.reset();
    if (!is_baseline(workload, c) && baseline_cost && cost && *cost > 0)
      s.ratio_vs_baseline = *baseline_cost / *cost;
  }
}

model::rank_agreement agreement_of(const model::document& results) {
  std::vector<double> simulated, timed;
  for (const model::workload& w : results.workloads)
    for (const model::cell& c : w.cells) {
      const std::optional<double> t = timed_ratio(c);
      if (!c.simulated || !c.simulated->ratio_vs_baseline || !t) continue;
      simulated.push_back(*c.simulated->ratio_vs_baseline);
      timed.push_back(*t);
    }
  model::rank_agreement a;
  a.cells = simulated.size();
  a.rho = spearman_rho(simulated, timed);
  a.timed_ratio = "vs_std.speedup_p50 (batch), vs_std.speedup_ns_per_pair (heap)";
  return a;
}

}  // namespace

std::optional<double> timed_ratio(const model::cell& c) {
  if (!c.vs_std) return std::nullopt;
  if (c.vs_std->speedup_ns_per_pair && *c.vs_std->speedup_ns_per_pair)
    return **c.vs_std->speedup_ns_per_pair;
  return c.vs_std->speedup_p50;
}

bool timing_inconclusive(const model::cell& c) {
  if (!c.vs_std) return false;  // the baseline, or untimed
  const std::optional<model::interval> range = timed_interval(*c.vs_std);
  return !range || (range->low <= 1 && 1 <= range->high);
}

void add_simulation(model::document& results, const std::optional<run_simulation>& simulation) {
  if (!simulation) return;
  for (model::workload& w : results.workloads) add_to_workload(w, *simulation);
  model::simulation_facts facts = simulation->facts;
  facts.agreement = agreement_of(results);
  results.simulation = std::move(facts);
}

}  // namespace alloclab::lab::simulate
