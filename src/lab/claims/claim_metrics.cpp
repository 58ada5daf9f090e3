#include "claims/claim_metrics.hpp"

#include <algorithm>

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// Ratios are oriented so that > 1 favours the candidate: baseline figure / candidate figure, and
// throughput (a rate) as candidate / baseline, the same as baseline mean time / candidate mean.
template <double model::timing::*pooled, std::vector<double> model::timing::*series>
std::optional<model::repetition_series> timing_figure(const model::cell& c) {
  if (!c.timing) return std::nullopt;
  return model::repetition_series{(*c.timing).*series, (*c.timing).*pooled};
}

// p99 - p50 per repetition (over the repetitions both series have), and the pooled jitter.
std::optional<model::repetition_series> jitter_figure(const model::cell& c) {
  if (!c.timing) return std::nullopt;
  const model::timing& t = *c.timing;
  model::repetition_series s{{}, t.jitter_ns};
  for (std::size_t i = 0; i < t.repetition_p99_ns.size() && i < t.repetition_medians_ns.size(); ++i)
    s.per_repetition.push_back(t.repetition_p99_ns[i] - t.repetition_medians_ns[i]);
  return s;
}

// The heap frame's figure (model::figures::series): ns per malloc+free pair per repetition.
std::optional<model::repetition_series> pair_figure(const model::cell& c) {
  return c.figures.series("speedup_ns_per_pair");
}

using model::timing;
constexpr cell_figure p50{"p50_ns", timing_figure<&timing::p50_ns, &timing::repetition_medians_ns>};
constexpr cell_figure mean{"mean_ns",
                           timing_figure<&timing::mean_ns, &timing::repetition_means_ns>};
constexpr cell_figure p99{"p99_ns", timing_figure<&timing::p99_ns, &timing::repetition_p99_ns>};
constexpr cell_figure jitter{"jitter_ns", jitter_figure};
constexpr cell_figure cv{"cv", timing_figure<&timing::cv, &timing::repetition_cv>};
constexpr cell_figure ns_per_pair{"mean", pair_figure, true};
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

accepted_range accepted(const json& claim) {
  const json& claimed = claim.at("claimed");
  const double low = claimed.is_array() ? claimed.at(0).get<double>() : claimed.get<double>();
  const double high = claimed.is_array() ? claimed.at(1).get<double>() : claimed.get<double>();
  const double tolerance = claim.value("tolerance", 0.2);
  return {low / (1 + tolerance), high * (1 + tolerance)};
}

}  // namespace alloclab::lab
