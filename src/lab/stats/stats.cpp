#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

namespace alloclab::lab {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, q);
}

summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("summary of an empty sample");
  std::sort(values.begin(), values.end());
  summary s;
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  s.p50 = percentile_sorted(values, 0.50);
  s.p90 = percentile_sorted(values, 0.90);
  s.p99 = percentile_sorted(values, 0.99);
  s.p999 = percentile_sorted(values, 0.999);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0.0;
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  s.jitter = s.p99 - s.p50;
  return s;
}

namespace {

// Midranks of the pooled sample; returns the rank sum of the first n1 values and the
// tie-correction term sum(t^3 - t).
struct rank_info {
  double rank_sum_x = 0;
  double tie_term = 0;
};

rank_info rank_pooled(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, bool>> pooled;  // (value, belongs to x)
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](auto& a, auto& b) { return a.first < b.first; });
  rank_info info;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    const double t = static_cast<double>(j - i);
    info.tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) info.rank_sum_x += midrank;
    i = j;
  }
  return info;
}

// Number of ways to reach each U value: counts[u] for u in [0, n1*n2] (no ties).
std::vector<double> u_distribution(std::size_t n1, std::size_t n2) {
  // f(i, j, u): arrangements of i x's and j y's with U = u; built up row by row.
  const std::size_t max_u = n1 * n2;
  std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (std::size_t i = 0; i <= n1; ++i)
    for (std::size_t j = 0; j <= n2; ++j) {
      f[i][j].assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[i][j][0] = 1.0;
        continue;
      }
      // The largest element is an x (it beats all j y's) or a y.
      for (std::size_t u = 0; u <= i * j; ++u) {
        double ways = 0;
        if (u >= j && u - j <= (i - 1) * j) ways += f[i - 1][j][u - j];
        if (u <= i * (j - 1)) ways += f[i][j - 1][u];
        f[i][j][u] = ways;
      }
    }
  std::vector<double> counts = f[n1][n2];
  counts.resize(max_u + 1, 0.0);
  return counts;
}

double exact_two_sided_p(double u, std::size_t n1, std::size_t n2) {
  const std::vector<double> counts = u_distribution(n1, n2);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double mean = static_cast<double>(n1 * n2) / 2.0;
  const double u_low = std::min(u, 2 * mean - u);
  double tail = 0;
  for (std::size_t k = 0; static_cast<double>(k) <= u_low + 1e-9; ++k) tail += counts[k];
  return std::min(1.0, 2.0 * tail / total);
}

double normal_two_sided_p(double z) {
  return std::erfc(std::fabs(z) / std::sqrt(2.0));
}

constexpr std::size_t exact_limit = 25;

}  // namespace

mann_whitney_result mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty())
    throw std::invalid_argument("Mann-Whitney U needs two non-empty samples");
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  const rank_info ranks = rank_pooled(x, y);
  mann_whitney_result result;
  result.u = ranks.rank_sum_x - n1 * (n1 + 1) / 2.0;

  if (ranks.tie_term == 0 && x.size() <= exact_limit && y.size() <= exact_limit) {
    result.exact = true;
    result.p_value = exact_two_sided_p(result.u, x.size(), y.size());
    return result;
  }
  const double n = n1 + n2;
  const double mean = n1 * n2 / 2.0;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - ranks.tie_term / (n * (n - 1)));
  if (variance <= 0) return result;  // every value tied: no evidence of a difference
  const double distance = std::max(0.0, std::fabs(result.u - mean) - 0.5);  // continuity correction
  result.p_value = std::min(1.0, normal_two_sided_p(distance / std::sqrt(variance)));
  return result;
}

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1.0;
  // All x below all y: one arrangement out of C(n1+n2, n1), doubled for two sides.
  double combinations = 1;
  for (std::size_t k = 1; k <= n1; ++k)
    combinations = combinations * static_cast<double>(n2 + k) / static_cast<double>(k);
  return std::min(1.0, 2.0 / combinations);
}

namespace {

double median_of_resample(const std::vector<double>& values, std::mt19937_64& rng,
                          std::vector<double>& scratch) {
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  scratch.resize(values.size());
  for (double& v : scratch) v = values[pick(rng)];
  return percentile(scratch, 0.5);
}

}  // namespace

interval bootstrap_ratio_of_medians(const std::vector<double>& numerator,
                                    const std::vector<double>& denominator, double confidence,
                                    std::size_t resamples, std::uint64_t seed) {
  if (numerator.empty() || denominator.empty() || resamples == 0) return {};
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, scratch;
  ratios.reserve(resamples);
  for (std::size_t i = 0; i < resamples; ++i) {
    const double num = median_of_resample(numerator, rng, scratch);
    const double den = median_of_resample(denominator, rng, scratch);
    if (num <= 0 || den <= 0) return {};
    ratios.push_back(num / den);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  return {percentile_sorted(ratios, tail), percentile_sorted(ratios, 1 - tail)};
}

}  // namespace alloclab::lab
