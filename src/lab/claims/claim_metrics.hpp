// The metrics a seed claim names (claims/seed_claims.json's `metric`), one table entry each: the
// figure of a cell it reads, how a claim on it is judged and the figure a budgeted run's stop rule
// follows for it. The claims' judges (results/claims.cpp), the ratio estimates
// (results/ratio_intervals.hpp) and the stop rule's tracked comparisons read this table instead of
// testing metric names. Adding a metric is one entry in claim_metrics.cpp, plus its name in
// claims/seed_claims.schema.json's list for its judging (a test compares the two).
//
// Example:
//   const claim_metric* m = find_claim_metric("speedup_p50");  // null for an unknown name
//   if (m && m->judged_as == claim_judging::ratio) read(m->figure.pooled);  // "p50_ns"
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/decision.hpp"

namespace alloclab::lab {

// How a claim on the metric is judged.
enum class claim_judging {
  ratio,           // baseline figure / candidate figure against the accepted range
  served_ratio,    // a served variant's vs_std estimate (results.serve) against the accepted range
  lowest,          // the candidate has the lowest figure among `among`, beyond the U test's noise
  highest,         // the candidate workload costs the most per pair among `among_workloads`
  returns_memory,  // the `retains` mallocs keep their heap growth resident, the `returns` ones not
};

// A figure of a results cell: the pooled value and its per-repetition series, both in one block.
struct cell_figure {
  std::string_view block;         // "timing" or "ns_per_pair"; empty: the metric reads none
  std::string_view pooled;        // the pooled figure's key in the block
  std::string_view series;        // the per-repetition series' key
  std::string_view minus_series;  // when set, each repetition is series - minus_series (jitter)
};

struct claim_metric {
  std::string_view name;
  claim_judging judged_as;
  cell_figure figure;                // ratio, lowest, highest: what it reads of each cell
  std::string_view stop_figure;      // the stop rule's figure (records' readings); empty: none
  std::string_view served_estimate;  // served_ratio: the estimate's key in the cell's vs_std
  // Whether the figure is the heap study's cost per malloc+free pair.
  bool reads_heap_pairs() const { return figure.block == "ns_per_pair"; }
};

// Every metric, in the table's order.
const std::vector<claim_metric>& claim_metrics();
// The metric called `name`, or null.
const claim_metric* find_claim_metric(const std::string& name);
// "a, b, c": the names, for messages about an unknown one.
std::string claim_metric_names();

// The figure's per-repetition values in `block` (a cell's block); empty when the block lacks them.
std::vector<double> repetition_series(const cell_figure& figure, const nlohmann::json& block);

// The ratio range a claim accepts: its `claimed` value (or [low, high]) widened by `tolerance`
// (default 0.2) the same factor either way: "1.4x" with tolerance 0.2 accepts 1.17x to 1.68x.
accepted_range accepted(const nlohmann::json& claim);

}  // namespace alloclab::lab
