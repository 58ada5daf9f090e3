// Statistics -> results.json (schema documented in docs/results-schema.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "measure/build_guard.hpp"
#include "measure/measurement.hpp"

namespace lab {

inline constexpr int results_schema_version = 1;
inline constexpr double significance_alpha = 0.05;

struct results_context {
    build_facts build;
    std::string command_line;
    std::string created_utc;  // ISO 8601, e.g. 2026-04-01T12:00:00Z
};

nlohmann::json build_results(const run_measurement& run, const results_context& context);

// "**" p < 0.01, "*" p < alpha, "n.s." otherwise, "?" when the test cannot reach alpha at all.
std::string significance_mark(double p_value, bool test_has_power);

}  // namespace lab
