// The run's simulation in the results model: each simulated cell's `simulated` part, with its ratio to
// its workload's baseline cell, and the top-level `simulation` with the rank agreement between
// the simulated and the timed ratios of the same cells.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/document.hpp"

namespace alloclab::lab::simulate {

// One planned cell's simulated cost, named as the results name the cell.
struct cell_simulation {
  std::string workload, strategy, malloc;
  model::simulated_cost cost;
};

// What a run simulated (simulation_queue::finish): the method and its account, without the rank
// agreement (add_simulation computes it), and every planned cell's cost.
struct run_simulation {
  model::simulation_facts facts;
  std::vector<cell_simulation> cells;
};

// The timed ratio a cell's simulated ratio is compared with: `vs_std.speedup_ns_per_pair` for a
// heap cell, else `vs_std.speedup_p50` (null without one).
std::optional<double> timed_ratio(const model::cell& c);
// Whether the timed comparison leaves the cell undecided: its ratio's interval holds 1 (or it
// has none).
bool timing_inconclusive(const model::cell& c);

// Adds `simulation` (none: nothing) to `results`, whose workloads and their `vs_std` are already
// built: each simulated cell's `simulated` and the document's `simulation` with the rank
// agreement.
void add_simulation(model::document& results, const std::optional<run_simulation>& simulation);

}  // namespace alloclab::lab::simulate
