// Descriptive statistics of timing samples and the Mann-Whitney U test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace alloclab::lab {

// The significance level of every test the lab makes.
inline constexpr double significance_alpha = 0.05;

// Linear-interpolation percentile (Hyndman-Fan type 7, numpy's default); q in [0, 1].
// `sorted` must be sorted ascending and non-empty.
double percentile_sorted(const std::vector<double>& sorted, double q);
double percentile(std::vector<double> values, double q);

struct summary {
  std::size_t count = 0;
  double min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  double mean = 0, stddev = 0;  // stddev with n-1 denominator
  double cv = 0;                // stddev / mean
  double jitter = 0;            // p99 - p50: absolute, the headline determinism figure
};

summary summarize(std::vector<double> values);

struct mann_whitney_result {
  double u = 0;        // U of the first sample
  double p_value = 1;  // two-sided
  bool exact =
      false;  // exact permutation distribution (no ties, small samples) or normal approximation
};

// Two-sided Mann-Whitney U test of x against y.
mann_whitney_result mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// The smallest two-sided p-value the test can reach with these sample sizes.
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

// A percentile-bootstrap confidence interval for median(numerator) / median(denominator), each
// resampled with replacement (independently: the two sides come from different processes).
// Deterministic for a given seed. {0, 0} when either side is empty or a median is not positive.
struct interval {
  double low = 0;
  double high = 0;
  bool valid() const { return high > 0 && low > 0; }
};
interval bootstrap_ratio_of_medians(const std::vector<double>& numerator,
                                    const std::vector<double>& denominator,
                                    double confidence = 0.95, std::size_t resamples = 2000,
                                    std::uint64_t seed = 1);

}  // namespace alloclab::lab
