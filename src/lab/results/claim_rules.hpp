// How a seed claim becomes a verdict (results/claims.cpp judges the claims; this is their
// shared vocabulary): the verdict words, the smallest runs worth judging, and how an estimated
// ratio with its interval becomes a verdict (the rule itself is stats/decision.hpp's
// judge_claim, beside the lab's difference and equivalence rules).
// claims_ranking.cpp judges the claims that rank cells or classify mallocs.
//
// Example:
//   using namespace alloclab::lab::claim_rules;
//   const accepted_range range = accepted({{"claimed", 1.4}, {"tolerance", 0.2}});
//   const bool inside = range.contains(1.5);  // accepts 1.17x to 1.68x
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "claims/claim_metrics.hpp"
#include "model/claims.hpp"
#include "model/document.hpp"
#include "results/ratio_intervals.hpp"

namespace alloclab::lab::claim_rules {

using json = nlohmann::json;

inline constexpr const char* reproduced = "reproduced";
inline constexpr const char* refuted = "refuted";
inline constexpr const char* not_measurable = "not measurable here";
inline constexpr const char* not_measured = "not measured in this run";
inline constexpr const char* inconclusive = "inconclusive";
inline constexpr const char* too_few = "not judged: too few samples";

// Below these a verdict would be noise: 5 heap iterations once refuted a claim 5000 reproduced.
inline constexpr std::size_t min_repetitions = 5;
inline constexpr std::size_t min_batch_samples = 100;
inline constexpr std::size_t min_heap_iterations = 1000;

// One claim's verdict, what was measured and why.
struct outcome {
  std::string verdict;
  std::string measured;
  std::string detail;
  std::optional<model::interval> accepted{};       // the ratio range the claim accepts
  std::vector<model::claim_estimate> estimates{};  // what the run measured
};

// The cell of `workload` measured with `strategy` under `malloc`, or null.
const model::cell* find_cell(const model::document& results, const std::string& workload,
                             const std::string& strategy, const std::string& malloc);
// "workload x strategy", with " @ malloc" when not glibc.
std::string cell_name(const std::string& workload, const std::string& strategy,
                      const std::string& malloc);
// How to measure a claim this run did not cover.
std::string run_hint(const json& claim);
// The cell with a number, or the outcome that explains why there is none: a cell this run did not
// include is "not measured in this run"; one that ran but has no number is "not measurable here".
std::optional<outcome> why_untimed(const model::document& results, const json& claim,
                                   const std::string& workload, const std::string& strategy,
                                   const std::string& malloc, const model::cell*& cell);
// How a ratio outside the accepted range differs from the claim: ratios are
// oriented so that > 1 favours the candidate, so compare effects in log space.
std::string miss_direction(double measured, const accepted_range& range);
// Why the run is too small to judge a claim on these cells, or empty. Samples per repetition are
// the cells' own when given (a budgeted run sizes them by time), else the run's configuration.
std::string too_small(const model::document& results, const ratio_estimate& r,
                      const claim_metric& metric, const model::cell* base = nullptr,
                      const model::cell* candidate = nullptr);
// The verdict of stats/decision.hpp's judge_claim on the estimate's interval (and its U test,
// when the interval is over repetitions) as the verdict word; what made it refuted or
// inconclusive is added to `detail`. The range a claim accepts is claims/claim_metrics.hpp's
// accepted(claim).
std::string verdict_of(const ratio_estimate& r, const accepted_range& range, std::string& detail);
// The verdict's figures as the results model holds them, and the estimate as the claims table
// shows it.
model::interval accepted_interval(const accepted_range& range);
model::claim_estimate estimate_of(const ratio_estimate& r, const std::string& malloc);
std::string estimate_text(const ratio_estimate& r);

// The stop rule's interval of the comparison `id` (results.json's `budget`, which every run
// since issue 20 has): process-level, adjusted for the run's looks (docs/budget.md). It replaces
// the interval over repetitions of `r` when found; returns the words the verdict's detail uses
// for the interval it judged ("95% interval over repetitions" when not found).
std::string use_stop_rule_interval(const model::document& results, const std::string& id,
                                   ratio_estimate& r);

// Claims that rank cells or classify mallocs (claims_ranking.cpp).
// "Workload X costs the most per pair": under every malloc that measured all of `among_workloads`
// (the metric's figure, pooled).
outcome judge_highest(const model::document& results, const json& claim,
                      const claim_metric& metric);
// "These mallocs keep freed memory resident, those give it back": the share of a heap cell's RSS
// growth still resident at `figure` (memory.retention.<figure>; default after_free_1s, the
// settled figure before any explicit purge), median over `workloads`, against `threshold`.
outcome judge_returns_memory(const model::document& results, const json& claim);
// The candidate must have the lowest figure (the metric's), and the gap to the nearest rival must
// hold over repetitions (U test); otherwise the ranking is inside the noise.
outcome judge_lowest(const model::document& results, const json& claim, const claim_metric& metric);
// Heap-study claims that rank workloads or classify mallocs need the seed's scale of batches
// before any verdict.
std::optional<outcome> heap_run_too_small(const model::document& results,
                                          const claim_metric& metric);
// The heap study's batches per repetition (the heap frame's `config.heap.iterations`), or none
// when no heap workload ran.
std::optional<std::size_t> heap_iterations(const model::document& results);

}  // namespace alloclab::lab::claim_rules
