// Ratios between two timed cells with their intervals: one definition for the headline
// comparisons and the seed-claim verdicts. Ratios are oriented so that > 1 favours the
// candidate (baseline figure / candidate figure; throughput the other way round).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "stats/stats.hpp"

namespace alloclab::lab {

inline constexpr double interval_confidence = 0.95;

// Metric names: speedup_p50, speedup_mean, p99_ratio, jitter_ratio, cv_ratio, throughput_ratio
// (over `timing` blocks) and speedup_ns_per_pair (over heap cells' `ns_per_pair`).
struct ratio_estimate {
  double value = 0;  // from the pooled samples
  interval range;    // bootstrap over repetitions; invalid when it cannot be formed
  std::size_t base_repetitions = 0;
  std::size_t candidate_repetitions = 0;
};

// nullopt when either cell lacks the figure or a figure is not positive.
std::optional<ratio_estimate> estimate_ratio(const std::string& metric, const nlohmann::json& base,
                                             const nlohmann::json& candidate);

}  // namespace alloclab::lab
