#include "results/ratio_intervals.hpp"

#include <vector>

#include "claims/claim_metrics.hpp"

namespace alloclab::lab {
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
  r.test = difference_test{mann_whitney_u(numerator, denominator).p_value,
                           can_reach_significance(numerator.size(), denominator.size())};
  return r;
}

std::optional<ratio_estimate> estimate_cell_ratio(const std::string& metric,
                                                  const model::cell& base,
                                                  const model::cell& candidate, double confidence) {
  const claim_metric* m = find_claim_metric(metric);
  if (m == nullptr || m->judged_as != claim_judging::ratio) return std::nullopt;
  const model::repetition_series b = m->figure.read(base).value_or(model::repetition_series{});
  const model::repetition_series c = m->figure.read(candidate).value_or(model::repetition_series{});
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
