// Rank agreement between two figures of the same cells: Spearman's rho (the Pearson correlation
// of their ranks, ties given their mean rank).
#pragma once

#include <optional>
#include <vector>

namespace alloclab::lab::simulate {

// 1-based ranks, ties the mean of the ranks they span.
std::vector<double> mean_ranks(const std::vector<double>& values);

// Spearman's rho of x and y (same length); nullopt with fewer than 3 pairs or when either side's
// ranks are all equal.
std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace alloclab::lab::simulate
