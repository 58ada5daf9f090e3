#include "claims/claim_metrics.hpp"

#include <algorithm>

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// Ratios are oriented so that > 1 favours the candidate: baseline figure / candidate figure, and
// throughput (a rate) as candidate / baseline, the same as baseline mean time / candidate mean.
constexpr cell_figure p50{"timing", "p50_ns", "repetition_medians_ns", {}};
constexpr cell_figure mean{"timing", "mean_ns", "repetition_means_ns", {}};
constexpr cell_figure p99{"timing", "p99_ns", "repetition_p99_ns", {}};
constexpr cell_figure jitter{"timing", "jitter_ns", "repetition_p99_ns", "repetition_medians_ns"};
constexpr cell_figure cv{"timing", "cv", "repetition_cv", {}};
constexpr cell_figure ns_per_pair{"ns_per_pair", "mean", "per_repetition", {}};
constexpr cell_figure none{};

}  // namespace

const std::vector<claim_metric>& claim_metrics() {
  using j = claim_judging;
  static const std::vector<claim_metric> table = {
      {"speedup_p50", j::ratio, p50, "p50", {}},
      {"speedup_mean", j::ratio, mean, "mean", {}},
      {"throughput_ratio", j::ratio, mean, "mean", {}},
      {"p99_ratio", j::ratio, p99, "p99", {}},
      {"jitter_ratio", j::ratio, jitter, "jitter", {}},
      {"cv_ratio", j::ratio, cv, "cv", {}},
      {"speedup_ns_per_pair", j::ratio, ns_per_pair, "ns_per_pair", {}},
      {"serve_cpu_per_request_ratio", j::served_ratio, none, "cpu_per_request",
       "cpu_per_request_ratio"},
      {"serve_throughput_ratio_hey", j::served_ratio, none, "time_per_request",
       "throughput_ratio_hey"},
      {"lowest_cv", j::lowest, cv, "cv", {}},
      {"lowest_jitter", j::lowest, jitter, "jitter", {}},
      {"highest_ns_per_pair", j::highest, ns_per_pair, "ns_per_pair", {}},
      {"returns_memory", j::returns_memory, none, {}, {}},
  };
  return table;
}

const claim_metric* find_claim_metric(const std::string& name) {
  const auto& table = claim_metrics();
  const auto found = std::find_if(table.begin(), table.end(),
                                  [&](const claim_metric& m) { return m.name == name; });
  return found == table.end() ? nullptr : &*found;
}

std::string claim_metric_names() {
  std::string names;
  for (const claim_metric& m : claim_metrics())
    names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

std::vector<double> repetition_series(const cell_figure& figure, const json& block) {
  const auto series = [&](std::string_view key) {
    const std::string k(key);
    if (!block.is_object() || !block.contains(k)) return std::vector<double>{};
    return block.at(k).get<std::vector<double>>();
  };
  std::vector<double> values = series(figure.series);
  if (figure.minus_series.empty()) return values;
  const std::vector<double> minus = series(figure.minus_series);
  values.resize(std::min(values.size(), minus.size()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] -= minus[i];
  return values;
}

accepted_range accepted(const json& claim) {
  const json& claimed = claim.at("claimed");
  const double low = claimed.is_array() ? claimed.at(0).get<double>() : claimed.get<double>();
  const double high = claimed.is_array() ? claimed.at(1).get<double>() : claimed.get<double>();
  const double tolerance = claim.value("tolerance", 0.2);
  return {low / (1 + tolerance), high * (1 + tolerance)};
}

}  // namespace alloclab::lab
