// The metrics a seed claim names (claims/seed_claims.json's `metric`), one table entry each: the
// figure of a cell it reads, how a claim on it is judged and the figure a budgeted run's stop rule
// follows for it. The claims' judges (results/claims.cpp), the ratio estimates
// (results/ratio_intervals.hpp) and the stop rule's tracked comparisons read this table instead of
// testing metric names. Adding a metric is one entry in claim_metrics.cpp, plus its name in
// claims/seed_claims.schema.json's list for its judging (a test compares the two).
//
// Example:
//   const claim_metric* m = find_claim_metric("speedup_p50");  // null for an unknown name
//   if (m && m->judged_as == claim_judging::ratio) use(m->figure.read(cell));  // its p50 series
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/cell.hpp"
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

// A figure of a results cell (model/cell.hpp): the pooled value and its per-repetition series.
struct cell_figure {
  std::string_view name;  // the pooled figure, as the verdicts' details name it ("p50_ns", "cv")
  // The figure of a cell, nullopt when the cell has none (no timing; not a heap cell). Null: the
  // metric reads no cell figure.
  std::optional<model::repetition_series> (*read)(const model::cell& cell) = nullptr;
  bool heap_pairs = false;  // the heap study's cost per malloc+free pair
};

struct claim_metric {
  std::string_view name;
  claim_judging judged_as;
  cell_figure figure;                // ratio, lowest, highest: what it reads of each cell
  std::string_view stop_figure;      // the stop rule's figure (records' readings); empty: none
  std::string_view served_estimate;  // served_ratio: the estimate's key in the cell's vs_std
  // Whether the figure is the heap study's cost per malloc+free pair.
  bool reads_heap_pairs() const { return figure.heap_pairs; }
};

// Every metric, in the table's order.
const std::vector<claim_metric>& claim_metrics();
// The metric called `name`, or null.
const claim_metric* find_claim_metric(const std::string& name);
// "a, b, c": the names, for messages about an unknown one.
std::string claim_metric_names();

// The ratio range a claim accepts: its `claimed` value (or [low, high]) widened by `tolerance`
// (default 0.2) the same factor either way: "1.4x" with tolerance 0.2 accepts 1.17x to 1.68x.
accepted_range accepted(const nlohmann::json& claim);

}  // namespace alloclab::lab
