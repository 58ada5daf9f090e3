#include "results/ratio_intervals.hpp"

#include <vector>

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::vector<double> series(const json& block, const char* key) {
  if (!block.is_object() || !block.contains(key)) return {};
  return block.at(key).get<std::vector<double>>();
}

// The per-repetition figure behind a metric, and the pooled figure.
struct figures {
  std::vector<double> per_repetition;
  double pooled = 0;
};

figures figures_of(const std::string& metric, const json& cell) {
  if (metric == "speedup_ns_per_pair") {
    const json& n = cell.value("ns_per_pair", json());
    if (!n.is_object()) return {};
    return {series(n, "per_repetition"), n.at("mean").get<double>()};
  }
  const json& t = cell.value("timing", json());
  if (!t.is_object()) return {};
  if (metric == "speedup_p50") return {series(t, "repetition_medians_ns"), t.at("p50_ns")};
  if (metric == "speedup_mean" || metric == "throughput_ratio")
    return {series(t, "repetition_means_ns"), t.at("mean_ns")};
  if (metric == "p99_ratio") return {series(t, "repetition_p99_ns"), t.at("p99_ns")};
  if (metric == "cv_ratio") return {series(t, "repetition_cv"), t.at("cv")};
  if (metric == "jitter_ratio") {
    const auto p99 = series(t, "repetition_p99_ns");
    const auto p50 = series(t, "repetition_medians_ns");
    figures f{{}, t.at("jitter_ns")};
    for (std::size_t i = 0; i < p99.size() && i < p50.size(); ++i)
      f.per_repetition.push_back(p99[i] - p50[i]);
    return f;
  }
  return {};
}

}  // namespace

std::optional<ratio_estimate> ratio_of_repetition_medians(const std::vector<double>& numerator,
                                                          const std::vector<double>& denominator,
                                                          double confidence) {
  if (numerator.empty() || denominator.empty()) return std::nullopt;
  const double num = percentile(numerator, 0.5);
  const double den = percentile(denominator, 0.5);
  if (num <= 0 || den <= 0) return std::nullopt;
  ratio_estimate r;
  r.value = num / den;
  r.range = bootstrap_ratio_of_medians(numerator, denominator, confidence);
  r.base_repetitions = numerator.size();
  r.candidate_repetitions = denominator.size();
  return r;
}

std::optional<ratio_estimate> estimate_ratio(const std::string& metric, const json& base,
                                             const json& candidate, double confidence) {
  const figures b = figures_of(metric, base);
  const figures c = figures_of(metric, candidate);
  if (b.pooled <= 0 || c.pooled <= 0) return std::nullopt;
  // Every metric is "baseline / candidate" except throughput, which is "candidate / baseline"
  // of a rate: the same as baseline mean time / candidate mean time. The point is the
  // statistic the interval resamples, so it lies inside its own interval even when repetitions
  // disagree and the pooled figures part from them. Pooled figures, with no interval, stand in
  // when a side has no repetitions or a median figure that is not positive.
  if (auto r = ratio_of_repetition_medians(b.per_repetition, c.per_repetition, confidence))
    return r;
  ratio_estimate r;
  r.value = b.pooled / c.pooled;
  r.base_repetitions = b.per_repetition.size();
  r.candidate_repetitions = c.per_repetition.size();
  return r;
}

}  // namespace alloclab::lab
