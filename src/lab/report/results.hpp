// Statistics -> results.json (schema documented in docs/results-schema.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/build_guard.hpp"
#include "measure/measurement.hpp"

namespace alloclab::lab {

inline constexpr int results_schema_version = 2;
inline constexpr double significance_alpha = 0.05;

struct results_context {
  build_facts build;
  std::string command_line;
  std::string created_utc;  // ISO 8601, e.g. 2026-04-01T12:00:00Z
};

nlohmann::json build_results(const run_measurement& run, const results_context& context);

// The `timing` block of a cell from its samples (also used for heap-study cells measured in workers).
nlohmann::json timing_json(const cell_measurement& c, std::size_t batch);

// A cell with every key of the schema and no figures: the start of every cell, and the whole of
// one without a number (not installed, failed, refused). An empty reason is null.
nlohmann::json unmeasured_cell(const std::string& strategy, const std::string& malloc,
                               const std::string& status, const std::string& reason);

// (Re)computes every cell's `vs_std` against the workload's baseline cell, named by the
// workload's `baseline` {strategy, malloc}; cells without timing, or a baseline without timing,
// get null.
void add_comparisons(nlohmann::json& workload, bool test_has_power);

// Everything a reader must see, from a results document: DEBUG, too few repetitions, every cell
// without a number (overflowed, failed, refused, not installed) and every cell warning.
std::vector<std::string> collect_warnings(const nlohmann::json& results);

// Whether the U test can reach alpha with `repetitions` per side.
bool test_has_power(std::size_t repetitions);

// "**" p < 0.01, "*" p < alpha, "n.s." otherwise, "?" when the test cannot reach alpha at all.
std::string significance_mark(double p_value, bool power);

}  // namespace alloclab::lab
