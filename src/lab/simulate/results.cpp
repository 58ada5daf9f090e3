#include "simulate/results.hpp"

#include <vector>

#include "simulate/rank_agreement.hpp"

namespace alloclab::lab::simulate {
using json = nlohmann::json;

namespace {

std::optional<model::interval> timed_interval(const model::comparison& v) {
  if (v.speedup_ns_per_pair && *v.speedup_ns_per_pair)
    return v.intervals.speedup_ns_per_pair.value_or(std::nullopt);
  return v.intervals.speedup_p50;
}

// The simulated part of `cell` in `simulation`'s cells, or null.
json simulated_of(const json& simulation, const std::string& workload, const json& cell) {
  for (const json& s : simulation.at("cells"))
    if (s.at("workload") == workload && s.at("strategy") == cell.at("strategy") &&
        s.at("malloc") == cell.at("malloc"))
      return s.at("simulated");
  return nullptr;
}

std::optional<double> cost_of(const json& cell) {
  if (!cell.contains("simulated") || cell["simulated"].at("per_unit").is_null()) return {};
  return cell["simulated"]["per_unit"].at("cost").get<double>();
}

// Each cell's `simulated`, with its ratio to the workload's baseline cell.
void add_to_workload(json& workload, const json& simulation) {
  const json& wanted = workload.at("baseline");
  std::optional<double> baseline_cost;
  for (json& c : workload.at("cells")) {
    const json s = simulated_of(simulation, workload.at("name"), c);
    if (s.is_null()) continue;
    c["simulated"] = s;
    if (c.at("strategy") == wanted.at("strategy") && c.at("malloc") == wanted.at("malloc"))
      baseline_cost = cost_of(c);
  }
  for (json& c : workload.at("cells")) {
    if (!c.contains("simulated")) continue;
    const bool baseline =
        c.at("strategy") == wanted.at("strategy") && c.at("malloc") == wanted.at("malloc");
    const std::optional<double> cost = cost_of(c);
    c["simulated"]["ratio_vs_baseline"] =
        !baseline && baseline_cost && cost && *cost > 0 ? json(*baseline_cost / *cost) : json();
  }
}

model::rank_agreement agreement_of(const json& results) {
  std::vector<double> simulated, timed;
  for (const json& w : results.at("workloads"))
    for (const json& j : w.at("cells")) {
      if (!j.contains("simulated")) continue;
      const auto c = model::read_json<model::cell>(j, "/workloads/cells");
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

void add_simulation(json& results, const json& simulation) {
  if (simulation.is_null()) return;
  for (json& w : results.at("workloads")) add_to_workload(w, simulation);
  json facts = simulation.at("facts");
  facts["agreement"] = model::write_json(agreement_of(results));
  results["simulation"] = facts;
}

}  // namespace alloclab::lab::simulate
