// Ratios between two cells of the results model with their intervals: one definition for the
// cells' comparisons, the peer checks and the seed-claim verdicts. Ratios are oriented so that > 1 favours the
// candidate (baseline figure / candidate figure; throughput the other way round).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "stats/decision.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {

inline constexpr double interval_confidence = 0.95;

// Metrics: the ratio metrics of claims/claim_metrics.hpp's table (speedup_p50, speedup_mean,
// p99_ratio, jitter_ratio, cv_ratio, throughput_ratio over a cell's `timing`, speedup_ns_per_pair
// over the heap frame's figure), each read as its entry's figure says.
struct ratio_estimate {
  double value = 0;  // ratio of the median per-repetition figures (pooled without repetitions)
  interval range;    // bootstrap of that ratio over repetitions; invalid when it cannot be formed
  std::size_t base_repetitions = 0;
  std::size_t candidate_repetitions = 0;
  // The U test over the same repetitions, with its power check; none without repetitions.
  std::optional<difference_test> test;
};

// numerator / denominator of the sides' median per-repetition figures, with the bootstrap
// interval of that ratio; nullopt when a side is empty or its median is not positive.
std::optional<ratio_estimate> ratio_of_repetition_medians(const std::vector<double>& numerator,
                                                          const std::vector<double>& denominator,
                                                          double confidence = interval_confidence);

// The ratio `metric` between two cells: nullopt when the metric is not a ratio metric of the
// table, either cell lacks the figure or a figure is not positive. `confidence`: of the interval
// (a peer check picking the best of N strategies asks for 1 - alpha / N).
std::optional<ratio_estimate> estimate_cell_ratio(const std::string& metric,
                                                  const model::cell& base,
                                                  const model::cell& candidate,
                                                  double confidence = interval_confidence);

}  // namespace alloclab::lab
