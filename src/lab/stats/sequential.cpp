#include "stats/sequential.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace alloclab::lab {
namespace {

constexpr double unbounded = std::numeric_limits<double>::infinity();

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

process_spread spread_of(const figures_by_process& cell) {
  process_spread s;
  std::vector<double> means;
  double squares = 0, inverse_sizes = 0;
  for (const auto& process : cell) {
    if (process.empty()) continue;
    std::vector<double> logs;
    for (double figure : process) {
      if (!(figure > 0) || !std::isfinite(figure)) return {};
      logs.push_back(std::log(figure));
    }
    const double mean = mean_of(logs);
    for (double v : logs) squares += (v - mean) * (v - mean);
    s.within_df += static_cast<double>(logs.size() - 1);
    s.repetitions += logs.size();
    inverse_sizes += 1.0 / static_cast<double>(logs.size());
    means.push_back(mean);
  }
  s.processes = means.size();
  if (means.empty()) return s;
  s.level = mean_of(means);
  s.within = s.within_df > 0 ? squares / s.within_df : 0;
  // A process mean of n repetitions varies by within / n: averaged over processes of unequal n
  // (a cell whose later processes got more repetitions), the mean of 1 / n.
  s.within_part = s.within * inverse_sizes / static_cast<double>(s.processes);
  if (s.processes > 1) {
    double spread = 0;
    for (double m : means) spread += (m - s.level) * (m - s.level);
    s.process_variance = spread / static_cast<double>(s.processes - 1);
    s.between = std::max(0.0, s.process_variance - s.within_part);
  }
  return s;
}

pooled_between pool_between(const std::vector<process_spread>& cells) {
  pooled_between pool;
  double weighted = 0;
  for (const auto& c : cells) {
    if (c.processes < 2) continue;
    const double df = static_cast<double>(c.processes - 1);
    weighted += df * c.between;
    pool.df += df;
  }
  if (pool.df > 0) pool.variance = weighted / pool.df;
  return pool;
}

moderated_variance moderate(const process_spread& cell, const pooled_between& pool,
                            const stop_rule& rule) {
  const double prior_df = std::min(rule.prior_df, pool.df);
  const double prior = cell.within_part + pool.variance;
  const double own_df = cell.processes > 1 ? static_cast<double>(cell.processes - 1) : 0;
  moderated_variance m;
  m.df = prior_df + own_df;
  if (m.df <= 0) return m;
  m.variance = (prior_df * prior + own_df * cell.process_variance) / m.df;
  m.variance = std::max(m.variance, cell.within_part);  // a process mean varies at least that much
  return m;
}

double stop_rule::alpha_at(std::size_t k) const {
  const double picked = alpha / static_cast<double>(std::max<std::size_t>(1, candidates));
  if (!adjusted) return picked;
  const double weights = std::ldexp(1.0, static_cast<int>(looks)) - 1;  // 1 + 2 + ... + 2^(K-1)
  const std::size_t at = std::clamp<std::size_t>(k, 1, looks);
  const double share = std::ldexp(1.0, static_cast<int>(at) - 1);  // 2^(k-1)
  // The looks before k spent 1 + 2 + ... + 2^(k-2) = 2^(k-1) - 1 of the weights; the last look
  // takes all the rest.
  return picked * (last_look ? weights - (share - 1) : share) / weights;
}

stop_rule stop_rule::spending_the_rest() const {
  stop_rule r = *this;
  r.last_look = true;
  return r;
}

stop_rule rule_with_looks(std::size_t looks) {
  stop_rule rule;
  rule.looks = rule.look = std::max<std::size_t>(1, looks);
  return rule;
}

double t_quantile(double confidence, double df) {
  const boost::math::students_t distribution(df);
  return boost::math::quantile(distribution, 1 - (1 - confidence) / 2);
}

sequential_ratio compare_levels(const process_spread& base, const pooled_between& base_pool,
                                const process_spread& candidate,
                                const pooled_between& candidate_pool, const stop_rule& rule) {
  sequential_ratio r;
  if (!base.valid() || !candidate.valid()) return r;
  const double log_ratio = base.level - candidate.level;
  r.value = std::exp(log_ratio);
  r.high = unbounded;
  const moderated_variance b = moderate(base, base_pool, rule);
  const moderated_variance c = moderate(candidate, candidate_pool, rule);
  if (b.df <= 0 || c.df <= 0) return r;
  const double vb = b.variance / static_cast<double>(base.processes);
  const double vc = c.variance / static_cast<double>(candidate.processes);
  const double variance = vb + vc;
  r.log_se = std::sqrt(variance);
  // Welch-Satterthwaite: the df of a sum of two variance estimates.
  r.df =
      variance > 0 ? variance * variance / (vb * vb / b.df + vc * vc / c.df) : std::min(b.df, c.df);
  const double half = t_quantile(rule.confidence(), std::max(r.df, 1e-3)) * r.log_se;
  r.low = std::exp(log_ratio - half);
  r.high = std::exp(log_ratio + half);
  return r;
}

sequential_ratio compare_paired(const process_spread& ratios, const pooled_between& pool,
                                const stop_rule& rule) {
  sequential_ratio r;
  if (!ratios.valid()) return r;
  r.value = std::exp(ratios.level);
  r.high = unbounded;
  const moderated_variance m = moderate(ratios, pool, rule);
  if (m.df <= 0) return r;
  r.log_se = std::sqrt(m.variance / static_cast<double>(ratios.processes));
  r.df = m.df;
  const double half = t_quantile(rule.confidence(), std::max(r.df, 1e-3)) * r.log_se;
  r.low = std::exp(ratios.level - half);
  r.high = std::exp(ratios.level + half);
  return r;
}

figures_by_process median_by_run(const figures_by_process& ratios) {
  figures_by_process out;
  for (std::vector<double> run : ratios) {
    if (run.empty()) continue;
    std::sort(run.begin(), run.end());
    const std::size_t n = run.size();
    out.push_back({n % 2 == 1 ? run[n / 2] : std::sqrt(run[n / 2 - 1] * run[n / 2])});
  }
  return out;
}

process_spread paired_spread(const figures_by_process& ratios) {
  process_spread runs = spread_of(median_by_run(ratios));
  const process_spread slices = spread_of(ratios);
  if (!runs.valid() || !slices.valid() || slices.repetitions == 0) return runs;
  const double per_run =
      static_cast<double>(slices.repetitions) / static_cast<double>(slices.processes);
  const double median_floor = std::acos(-1.0) / 2 * slices.within / per_run;
  runs.within_part = std::max(runs.within_part, median_floor);
  runs.between = std::max(0.0, runs.process_variance - runs.within_part);
  return runs;
}

bool decided(const sequential_ratio& r, const std::vector<double>& boundaries) {
  if (!r.bounded()) return false;
  return std::none_of(boundaries.begin(), boundaries.end(),
                      [&](double b) { return b >= r.low && b <= r.high; });
}

double shrink_needed(const sequential_ratio& r, const std::vector<double>& boundaries) {
  if (!(r.value > 0) || boundaries.empty()) return unbounded;
  double nearest = unbounded;
  for (double b : boundaries) nearest = std::min(nearest, std::abs(std::log(r.value / b)));
  if (nearest <= 0) return unbounded;
  if (!r.bounded()) return unbounded;
  const double half = std::log(r.high / r.value);
  return half / nearest;
}

sequential_ratio with_resolution_floor(sequential_ratio r, double first_level, double second_level,
                                       std::size_t runs, const stop_rule& rule, double resolution) {
  if (!r.bounded() || !(resolution > 0) || runs == 0) return r;
  const auto rounding = [&](double level) {
    const double q = resolution / std::exp(level);
    return q * q / 12 / static_cast<double>(runs);
  };
  const double floor = rounding(first_level) + rounding(second_level);
  if (r.log_se * r.log_se >= floor) return r;
  r.log_se = std::sqrt(floor);
  const double half = t_quantile(rule.confidence(), std::max(r.df, 1.0)) * r.log_se;
  r.low = r.value * std::exp(-half);
  r.high = r.value * std::exp(half);
  return r;
}

namespace {

// One process of one figure per run.
process_spread one_process_per_run(const std::vector<double>& runs) {
  figures_by_process processes;
  for (double figure : runs) processes.push_back({figure});
  return spread_of(processes);
}

}  // namespace

sequential_ratio compare_runs(const std::vector<double>& first, const std::vector<double>& second,
                              const stop_rule& rule, double resolution) {
  const process_spread a = one_process_per_run(first);
  const process_spread b = one_process_per_run(second);
  const sequential_ratio r = compare_levels(a, {}, b, {}, rule);
  return with_resolution_floor(r, a.level, b.level, std::min(a.processes, b.processes), rule,
                               resolution);
}

sequential_ratio compare_paired_runs(const std::vector<double>& first,
                                     const std::vector<double>& second, const stop_rule& rule,
                                     double resolution) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < first.size() && i < second.size(); ++i)
    if (first[i] > 0 && second[i] > 0) ratios.push_back(first[i] / second[i]);
  const sequential_ratio r = compare_paired(one_process_per_run(ratios), {}, rule);
  return with_resolution_floor(r, one_process_per_run(first).level,
                               one_process_per_run(second).level, ratios.size(), rule, resolution);
}

}  // namespace alloclab::lab
