// The run's simulation in the results model: each simulated cell's `simulated` part, with its ratio to
// its workload's baseline cell, and the top-level `simulation` with the rank agreement between
// the simulated and the timed ratios of the same cells.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "model/document.hpp"

namespace alloclab::lab::simulate {

// The timed ratio a cell's simulated ratio is compared with: `vs_std.speedup_ns_per_pair` for a
// heap cell, else `vs_std.speedup_p50` (null without one).
std::optional<double> timed_ratio(const model::cell& c);
// Whether the timed comparison leaves the cell undecided: its ratio's interval holds 1 (or it
// has none).
bool timing_inconclusive(const model::cell& c);

// Adds `simulation` (simulation_queue::finish's document; null: nothing) to `results`, whose
// workloads and their `vs_std` are already built: each simulated cell's `simulated` and the
// document's `simulation` with the rank agreement.
void add_simulation(model::document& results, const nlohmann::json& simulation);

}  // namespace alloclab::lab::simulate
