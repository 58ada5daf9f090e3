// Each cell against its workload's baseline cell, over the results model's cells: the ratios with
// their bootstrap intervals over repetitions and the U test over repetition medians.
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"

namespace alloclab::lab {
namespace {

// The per-repetition figure behind a timing metric, and the pooled figure.
model::repetition_series timing_series(const std::string& metric, const model::timing& t) {
  if (metric == "speedup_p50") return {t.repetition_medians_ns, t.p50_ns};
  if (metric == "speedup_mean" || metric == "throughput_ratio")
    return {t.repetition_means_ns, t.mean_ns};
  if (metric == "p99_ratio") return {t.repetition_p99_ns, t.p99_ns};
  if (metric == "cv_ratio") return {t.repetition_cv, t.cv};
  if (metric == "jitter_ratio") {
    model::repetition_series s{{}, t.jitter_ns};
    const auto& p99 = t.repetition_p99_ns;
    const auto& p50 = t.repetition_medians_ns;
    for (std::size_t i = 0; i < p99.size() && i < p50.size(); ++i)
      s.per_repetition.push_back(p99[i] - p50[i]);
    return s;
  }
  return {};
}

model::repetition_series series_of(const std::string& metric, const model::cell& c) {
  if (std::optional<model::repetition_series> own = c.figures.series(metric)) return *own;
  return c.timing ? timing_series(metric, *c.timing) : model::repetition_series{};
}

void add_comparison(model::cell& cell, const model::cell& baseline, bool power) {
  cell.vs_std.reset();
  if (!cell.timing || !baseline.timing) return;
  const mann_whitney_result test =
      mann_whitney_u(baseline.timing->repetition_medians_ns, cell.timing->repetition_medians_ns);
  model::comparison c;
  c.intervals.confidence = interval_confidence;
  c.intervals.method =
      "percentile bootstrap over repetitions (each from its cell's own processes): ratio of "
      "medians of the per-repetition figure";
  const auto compare = [&](const char* metric, std::optional<double>& value,
                           std::optional<model::interval>& range) {
    const auto r = estimate_cell_ratio(metric, baseline, cell);
    value = r ? std::optional<double>(r->value) : std::nullopt;
    range = r ? interval_of(r->range) : std::nullopt;
  };
  compare("speedup_p50", c.speedup_p50, c.intervals.speedup_p50);
  compare("speedup_mean", c.speedup_mean, c.intervals.speedup_mean);
  compare("p99_ratio", c.p99_ratio, c.intervals.p99_ratio);
  compare("jitter_ratio", c.jitter_ratio, c.intervals.jitter_ratio);
  compare("cv_ratio", c.cv_ratio, c.intervals.cv_ratio);
  compare("throughput_ratio", c.throughput_ratio, c.intervals.throughput_ratio);
  // Heap-study cells: mean ns per malloc+free pair (NOOP subtracted) against the baseline malloc.
  if (cell.figures.series("speedup_ns_per_pair"))
    compare("speedup_ns_per_pair", c.speedup_ns_per_pair.emplace(),
            c.intervals.speedup_ns_per_pair.emplace());
  c.mann_whitney_u = test.u;
  c.p_value = test.p_value;
  c.exact_test = test.exact;
  c.significant = power && test.p_value < significance_alpha;
  c.mark = significance_mark(test.p_value, power);
  cell.vs_std = std::move(c);
}

}  // namespace

std::optional<ratio_estimate> estimate_cell_ratio(const std::string& metric,
                                                  const model::cell& base,
                                                  const model::cell& candidate, double confidence) {
  const model::repetition_series b = series_of(metric, base);
  const model::repetition_series c = series_of(metric, candidate);
  if (b.pooled <= 0 || c.pooled <= 0) return std::nullopt;
  // Every metric is "baseline / candidate" except throughput, "candidate / baseline" of a rate:
  // the same as baseline mean time / candidate mean time. The point is the statistic the
  // interval resamples; the pooled figures, with no interval, stand in when a side has no
  // repetitions or a median figure that is not positive.
  if (auto r = ratio_of_repetition_medians(b.per_repetition, c.per_repetition, confidence))
    return r;
  ratio_estimate r;
  r.value = b.pooled / c.pooled;
  r.base_repetitions = b.per_repetition.size();
  r.candidate_repetitions = c.per_repetition.size();
  return r;
}

void add_comparisons(model::workload& workload, bool power) {
  const model::cell* found = nullptr;  // the last cell that matches, as version 6 picked it
  for (const model::cell& c : workload.cells)
    if (c.head.strategy == workload.baseline.strategy && c.head.malloc == workload.baseline.malloc)
      found = &c;
  if (found == nullptr) {
    for (model::cell& c : workload.cells) c.vs_std.reset();
    return;
  }
  const model::cell baseline = *found;  // as built, before any comparison is added
  for (model::cell& c : workload.cells) {
    if (&c != found)
      add_comparison(c, baseline, power);
    else
      c.vs_std.reset();
  }
}

}  // namespace alloclab::lab
