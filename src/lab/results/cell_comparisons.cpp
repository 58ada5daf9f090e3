// Each cell against its workload's baseline cell, over the results model's cells: the ratios with
// their bootstrap intervals over repetitions and the U test over repetition medians.
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"

namespace alloclab::lab {
namespace {

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
