#include "results/claim_rules.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "stats/ratio_text.hpp"

namespace alloclab::lab::claim_rules {

std::string malloc_of(const json& cell) {
  return cell.value("malloc", std::string("glibc"));
}

const json* find_cell(const json& results, const std::string& workload, const std::string& strategy,
                      const std::string& malloc) {
  for (const auto& w : results.at("workloads")) {
    if (w.at("name") != workload) continue;
    for (const auto& c : w.at("cells"))
      if (c.at("strategy") == strategy && malloc_of(c) == malloc) return &c;
  }
  return nullptr;
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

std::optional<outcome> why_untimed(const json& results, const json& claim,
                                   const std::string& workload, const std::string& strategy,
                                   const std::string& malloc, const json*& cell) {
  cell = find_cell(results, workload, strategy, malloc);
  const std::string name = cell_name(workload, strategy, malloc);
  if (!cell)
    return outcome{not_measured, "-",
                   fmt::format("{} was not part of this run (use {})", name, run_hint(claim))};
  if (cell->at("timing").is_null()) {
    const json& reason = cell->at("reason");
    return outcome{not_measurable, "-",
                   fmt::format("{} has no number: {}", name,
                               reason.is_string() ? reason.get<std::string>()
                                                  : cell->at("status").get<std::string>())};
  }
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
std::size_t samples_per_repetition(const json* cell) {
  if (cell == nullptr || !cell->value("timing", json()).is_object()) return 0;
  const json& t = cell->at("timing");
  const std::size_t reps = t.value("repetition_medians_ns", json::array()).size();
  return reps > 0 ? t.value("samples", std::size_t{0}) / reps : 0;
}

}  // namespace

std::string too_small(const json& results, const ratio_estimate& r, const std::string& metric,
                      const json* base, const json* candidate) {
  const std::size_t reps = std::min(r.base_repetitions, r.candidate_repetitions);
  if (reps < min_repetitions)
    return fmt::format("{} repetitions per side; a verdict needs at least {}", reps,
                       min_repetitions);
  const json& config = results.at("config");
  if (metric == "speedup_ns_per_pair") {
    const json& heap = config.value("heap", json());
    const std::size_t n = heap.is_object() ? heap.value("iterations", std::size_t{0}) : 0;
    if (n < min_heap_iterations)
      return fmt::format("{} batches per repetition; a verdict needs at least {}", n,
                         min_heap_iterations);
    return {};
  }
  std::size_t n = config.value("samples_per_repetition", std::size_t{0});
  if (samples_per_repetition(base) > 0 && samples_per_repetition(candidate) > 0)
    n = std::min(samples_per_repetition(base), samples_per_repetition(candidate));
  if (n < min_batch_samples)
    return fmt::format("{} samples per repetition; a verdict needs at least {}", n,
                       min_batch_samples);
  return {};
}

std::string verdict_of(const ratio_estimate& r, const accepted_range& range) {
  if (!r.range.valid()) return inconclusive;
  if (r.range.low >= range.low && r.range.high <= range.high) return reproduced;
  if (r.range.high < range.low || r.range.low > range.high) return refuted;
  return inconclusive;
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

std::string use_stop_rule_interval(const json& results, const std::string& id, ratio_estimate& r) {
  const json& budget = results.value("budget", json());
  if (budget.is_object())
    for (const json& c : budget.at("comparisons"))
      if (c.at("id") == id && c.at("value").is_number()) {
        r.value = c.at("value");
        r.range = c.at("low").is_number() && c.at("high").is_number()
                      ? interval{c.at("low"), c.at("high")}
                      : interval{};
        const json& rule = budget.at("stop_rule");
        const std::size_t candidates = c.value("candidates", std::size_t{1});
        const std::size_t paired = c.value("paired_runs", std::size_t{0});
        return fmt::format(
            "{:.4g}% stop-rule interval ({}, {} look{}{}; docs/budget.md)",
            100 * c.value("confidence", rule.at("confidence").get<double>()),
            paired > 0
                ? fmt::format("paired: {} lockstep ring run{}", paired, paired == 1 ? "" : "s")
                : std::string("process-level"),
            rule.at("looks").get<std::size_t>(),
            rule.at("looks").get<std::size_t>() == 1 ? "" : "s",
            candidates > 1
                ? fmt::format(", alpha / {}: the claim holds if any of {} candidates does",
                              candidates, candidates)
                : std::string());
      }
  return fmt::format("{:.0f}% interval over repetitions", 100 * interval_confidence);
}

}  // namespace alloclab::lab::claim_rules
