// The results builder: measurement records -> the results model (model::document; schema:
// docs/results-schema.md). Statistics, comparisons with intervals, warnings and the seed-claim
// verdicts are computed here, once; renderers only read what this produces.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedule/scheduler.hpp"
#include "measure/build_guard.hpp"
#include "model/document.hpp"
#include "plan/plan.hpp"
#include "results/ratio_intervals.hpp"
#include "simulate/results.hpp"

namespace alloclab::lab {

inline constexpr int results_schema_version = 6;

struct results_context {
  build_facts build;
  std::string command_line;
  std::string created_utc;  // ISO 8601, e.g. 2026-04-01T12:00:00Z
  // The copy-cost probe of this machine (plan/plan.hpp settle_placement_twin; environment).
  std::optional<model::placement_facts> placement = std::nullopt;
  // The noise gate (process/noise_gate.hpp): results `noise`.
  std::optional<model::noise_gate> noise = std::nullopt;
  // `run --shard`: which shard of which plan (plan/shard.hpp shard_summary; results "shard").
  std::optional<model::shard_facts> shard = std::nullopt;
  std::optional<model::merge_facts> merged = std::nullopt;  // `merge`: the shards it was built from
  // The simulated costs (simulate/queue.hpp's finish(); results "simulation").
  std::optional<simulate::run_simulation> simulation = std::nullopt;
};

// Amdahl's law: the whole's speedup when a part taking `share` of the time gets `speedup` faster.
double amdahl_ratio(double share, double speedup);

// The run's results model: every frame's typed part, the statistics, the warnings and the claims.
// It is written as JSON once, with the run directory (render/run_directory.hpp).
model::document build_results(const run_plan& plan, const run_records& run,
                              const results_context& context);

// Everything a reader must see: DEBUG, smoke test, too few repetitions, every cell without a
// number and every cell warning, then each frame's own (frame_results_writer::warnings).
std::vector<std::string> collect_warnings(const model::document& results);

// Whether the U test can reach alpha with `repetitions` per side.
bool test_has_power(std::size_t repetitions);

// "**" p < 0.01, "*" p < alpha, "n.s." otherwise, "?" when the test cannot reach alpha at all.
std::string significance_mark(double p_value, bool power);

}  // namespace alloclab::lab
