// The results builder: measurement records -> results.json (schema: docs/results-schema.md).
// The only code that writes results JSON. Statistics, comparisons with intervals, warnings and
// the seed-claim verdicts are computed here; renderers only read what this produces.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedule/scheduler.hpp"
#include "measure/build_guard.hpp"
#include "plan/plan.hpp"
#include "results/ratio_intervals.hpp"

namespace alloclab::lab {

inline constexpr int results_schema_version = 6;

struct results_context {
  build_facts build;
  std::string command_line;
  std::string created_utc;             // ISO 8601, e.g. 2026-04-01T12:00:00Z
  nlohmann::json placement = nullptr;  // the copy-cost probe of this machine (environment)
  nlohmann::json noise = nullptr;      // the noise gate (process/noise_gate.hpp): results `noise`
  nlohmann::json shard = nullptr;      // `run --shard`: which shard of which plan (results "shard")
  nlohmann::json merged = nullptr;     // `merge`: the shards it was built from (results "merged")
  // The simulated costs (simulate/queue.hpp's finish(); results "simulation"), or null.
  nlohmann::json simulation = nullptr;
};

// Amdahl's law: the whole's speedup when a part taking `share` of the time gets `speedup` faster.
double amdahl_ratio(double share, double speedup);

nlohmann::json build_results(const run_plan& plan, const run_records& run,
                             const results_context& context);

// (Re)computes every cell's `vs_std` against the workload's baseline cell ({strategy, malloc}),
// with bootstrap intervals over repetitions; cells without timing get null.
void add_comparisons(nlohmann::json& workload, bool test_has_power);

// Everything a reader must see: DEBUG, smoke test, too few repetitions, every cell without a
// number and every cell warning.
std::vector<std::string> collect_warnings(const nlohmann::json& results);

// Whether the U test can reach alpha with `repetitions` per side.
bool test_has_power(std::size_t repetitions);

// "**" p < 0.01, "*" p < alpha, "n.s." otherwise, "?" when the test cannot reach alpha at all.
std::string significance_mark(double p_value, bool power);

}  // namespace alloclab::lab
