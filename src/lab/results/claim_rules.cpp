#include "results/claim_rules.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "stats/ratio_text.hpp"

namespace alloclab::lab::claim_rules {

const model::cell* find_cell(const model::document& results, const std::string& workload,
                             const std::string& strategy, const std::string& malloc) {
  for (const model::workload& w : results.workloads) {
    if (w.name != workload) continue;
    for (const model::cell& c : w.cells)
      if (c.head.strategy == strategy && c.head.malloc == malloc) return &c;
  }
  return nullptr;
}

std::optional<std::size_t> heap_iterations(const model::document& results) {
  return model::claim_figures_of(results.config.frames).heap_iterations;
}

std::string cell_name(const std::string& workload, const std::string& strategy,
                      const std::string& malloc) {
  return malloc == "glibc" ? fmt::format("{} x {}", workload, strategy)
                           : fmt::format("{} x {} @ {}", workload, strategy, malloc);
}

std::string run_hint(const json& claim) {
  if (claim.contains("run_with")) return claim.at("run_with").get<std::string>();
  std::string hint = fmt::format(
      "--workloads {} --strategies {},{}", claim.value("workload", std::string("?")),
      claim.value("baseline", std::string("std")), claim.value("candidate", std::string("?")));
  const std::string m = claim.value("candidate_malloc", std::string("glibc"));
  if (m != "glibc") hint += " --malloc glibc," + m;
  return hint;
}

std::optional<outcome> why_untimed(const model::document& results, const json& claim,
                                   const std::string& workload, const std::string& strategy,
                                   const std::string& malloc, const model::cell*& cell) {
  cell = find_cell(results, workload, strategy, malloc);
  const std::string name = cell_name(workload, strategy, malloc);
  if (!cell)
    return outcome{not_measured, "-",
                   fmt::format("{} was not part of this run (use {})", name, run_hint(claim))};
  if (!cell->timing)
    return outcome{
        not_measurable, "-",
        fmt::format("{} has no number: {}", name, cell->head.reason.value_or(cell->head.status))};
  return std::nullopt;
}

std::string miss_direction(double measured, const accepted_range& range) {
  const double claimed_effect = std::log(std::sqrt(range.low * range.high));
  const double measured_effect = std::log(measured);
  if (std::abs(measured_effect) < 0.02 || claimed_effect * measured_effect < 0)
    return "no effect or the opposite one";
  return std::abs(measured_effect) > std::abs(claimed_effect) ? "a stronger effect than claimed"
                                                              : "a weaker effect than claimed";
}

namespace {

// Timed samples per repetition of a cell, or 0 when it does not say.
std::size_t samples_per_repetition(const model::cell* cell) {
  if (cell == nullptr || !cell->timing) return 0;
  const std::size_t reps = cell->timing->repetition_medians_ns.size();
  return reps > 0 ? cell->timing->samples / reps : 0;
}

}  // namespace

std::string too_small(const model::document& results, const ratio_estimate& r,
                      const claim_metric& metric, const model::cell* base,
                      const model::cell* candidate) {
  const std::size_t reps = std::min(r.base_repetitions, r.candidate_repetitions);
  if (reps < min_repetitions)
    return fmt::format("{} repetitions per side; a verdict needs at least {}", reps,
                       min_repetitions);
  if (metric.reads_heap_pairs()) {
    const std::size_t n = heap_iterations(results).value_or(0);
    if (n < min_heap_iterations)
      return fmt::format("{} batches per repetition; a verdict needs at least {}", n,
                         min_heap_iterations);
    return {};
  }
  std::size_t n = results.config.samples_per_repetition;
  if (samples_per_repetition(base) > 0 && samples_per_repetition(candidate) > 0)
    n = std::min(samples_per_repetition(base), samples_per_repetition(candidate));
  if (n < min_batch_samples)
    return fmt::format("{} samples per repetition; a verdict needs at least {}", n,
                       min_batch_samples);
  return {};
}

std::string verdict_of(const ratio_estimate& r, const accepted_range& range, std::string& detail) {
  const claim_finding v = judge_claim(r.range, range, r.test);
  if (v == claim_finding::refuted) detail += "; measured " + miss_direction(r.value, range);
  if (v == claim_finding::inconclusive && r.range.valid() && range.contains(r.range.low) &&
      range.contains(r.range.high))
    detail += r.test->has_power
                  ? fmt::format(
                        "; the interval lies inside the accepted range, but the U test over "
                        "repetitions leaves the difference inside the noise (p = {:.3g})",
                        r.test->p_value)
                  : std::string(
                        "; the interval lies inside the accepted range, but the U test "
                        "cannot reach significance with these repetitions");
  else if (v == claim_finding::inconclusive)
    detail += "; the interval straddles the accepted range";
  return to_string(v);
}

model::interval accepted_interval(const accepted_range& range) {
  return {range.low, range.high};
}

model::claim_estimate estimate_of(const ratio_estimate& r, const std::string& malloc) {
  model::claim_estimate e;
  e.malloc = malloc;
  e.value = r.value;
  if (r.range.valid()) {
    e.low = r.range.low;
    e.high = r.range.high;
  }
  return e;
}

std::string estimate_text(const ratio_estimate& r) {
  return r.range.valid() ? ratio_with_interval(r.value, r.range.low, r.range.high, "x")
                         : ratio_with_interval(r.value, std::nullopt, std::nullopt, "x");
}

namespace {

// "95% stop-rule interval (process-level, 4 looks; docs/budget.md)": what the verdict judged on.
std::string stop_rule_words(const model::budget_comparison& c, const model::stop_rule_facts& rule) {
  const std::size_t candidates = c.candidates.value_or(1);
  const std::size_t paired = c.paired_runs.value_or(0);
  return fmt::format(
      "{:.4g}% stop-rule interval ({}, {} look{}{}; docs/budget.md)",
      100 * c.confidence.value_or(rule.confidence),
      paired > 0 ? fmt::format("paired: {} lockstep ring run{}", paired, paired == 1 ? "" : "s")
                 : std::string("process-level"),
      rule.looks, rule.looks == 1 ? "" : "s",
      candidates > 1 ? fmt::format(", alpha / {}: the claim holds if any of {} candidates does",
                                   candidates, candidates)
                     : std::string());
}

}  // namespace

std::string use_stop_rule_interval(const model::document& results, const std::string& id,
                                   ratio_estimate& r) {
  if (results.budget && *results.budget)
    for (const model::budget_comparison& c : (*results.budget)->comparisons)
      if (c.id == id && c.value) {
        r.value = *c.value;
        r.range = c.low && c.high ? interval{*c.low, *c.high} : interval{};
        r.test.reset();  // the stop rule decides on its interval alone
        return stop_rule_words(c, (*results.budget)->stop_rule);
      }
  return fmt::format("{:.0f}% interval over repetitions", 100 * interval_confidence);
}

}  // namespace alloclab::lab::claim_rules
