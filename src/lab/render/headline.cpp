// The terminal headline (render_headline) and its claims tally: plain text from the results
// document alone, printed when a run ends.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "markdown.hpp"
#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "frames/batch/figures.hpp"
#include "frames/heap/figures.hpp"
#include "frames/replay/figures.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

using namespace markdown;  // the report's vocabulary

// "seed claims: 3 reproduced, 1 inconclusive, ...": every verdict the run gave, each counted under
// its own name, in the schema's order.
std::string claims_tally(const std::vector<model::claim_verdict>& claims) {
  static constexpr const char* verdicts[] = {"reproduced",
                                             "refuted",
                                             "inconclusive",
                                             "not judged: too few samples",
                                             "not measured in this run",
                                             "not measurable here"};
  std::vector<std::string> parts;
  for (const char* verdict : verdicts) {
    const auto n = std::count_if(claims.begin(), claims.end(), [&](const model::claim_verdict& c) {
      return c.verdict == verdict;
    });
    if (n > 0) parts.push_back(fmt::format("{} {}", n, verdict));
  }
  return fmt::format("seed claims: {}\n",
                     parts.empty() ? "none judged" : fmt::format("{}", fmt::join(parts, ", ")));
}

namespace {

// "1.07**": a lab cell's speedup with its mark ("" for n.s.), its status, "!" for a warning.
std::string headline_cell_text(const model::cell& c) {
  std::string text = cell_state(c.head);
  if (text.empty() && c.vs_std && c.vs_std->speedup_p50)
    text = fmt::format("{:.2f}{}", *c.vs_std->speedup_p50,
                       c.vs_std->mark == "n.s." ? "" : c.vs_std->mark);
  if (c.head.warning) text += "!";
  return text;
}

void lab_lines(std::string& out, const model::document& r, const model::workload& first,
               std::size_t name_width) {
  const bool with_malloc = several_mallocs(r);
  std::vector<std::string> columns;
  for (const auto& c : first.cells)
    if (!is_baseline(first, c) && !c.head.placement_twin)
      columns.push_back(cell_label(c.head, with_malloc));
  out += fmt::format(
      "speed vs {} at p50 (baseline p50 / cell p50, >1 = faster; ** p<0.01, * p<0.05, ! = the "
      "cell has a warning, listed below; intervals in report.md)\n",
      with_malloc ? baseline_name(first) : "std");
  out += fmt::format("{:<{}}  {:>9}", "workload", name_width, with_malloc ? "base p50" : "std p50");
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += fmt::format("  {:>9}", fmt::format("[{}]", i + 1));
  out += "\n";
  for (const auto& w : r.workloads) {
    if (!is_lab(w)) continue;
    out += fmt::format("{:<{}}  {:>9}", w.name, name_width, baseline_p50_text(w));
    for (const std::string& label : columns) {
      // The first workload's columns: this one may lack the cell.
      const model::cell* found = cell_labelled(w, label, with_malloc);
      out +=
          fmt::format("  {:>9}", found == nullptr ? std::string("-") : headline_cell_text(*found));
    }
    out += "\n";
  }
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += fmt::format("[{}] {}  ", i + 1, columns[i]);
  out += "\n";
}

// A heap-study cell: its mean ns per pair, or its status; its speedup over the baseline malloc.
std::string heap_cell_text(const model::cell& c) {
  const auto* f = c.figures.as<heap_cell_figures>();
  std::string text = c.head.status == "ok" && f != nullptr && f->ns_per_pair
                         ? fmt::format("{:.1f}", f->ns_per_pair->mean)
                         : status_text(c.head.status);
  if (c.vs_std && c.vs_std->speedup_ns_per_pair && *c.vs_std->speedup_ns_per_pair)
    text += fmt::format(" ({:.2f}x)", **c.vs_std->speedup_ns_per_pair);
  return text;
}

void heap_lines(std::string& out, const model::document& r) {
  std::vector<const model::workload*> heap;
  for (const auto& w : r.workloads)
    if (is_heap(w)) heap.push_back(&w);
  if (heap.empty()) return;
  out +=
      "heap study: mean ns per malloc+free pair, NOOP loop subtracted (lower is better; x = "
      "glibc / this; intervals in report.md)\n";
  out += fmt::format("{:<14}", "malloc");
  for (const model::workload* w : heap) out += fmt::format("  {:>20}", w->name);
  out += "\n";
  for (const std::string& m : r.config.mallocs) {
    out += fmt::format("{:<14}", m);
    for (const model::workload* w : heap) {
      const auto cell = std::find_if(w->cells.begin(), w->cells.end(),
                                     [&](const model::cell& c) { return c.head.malloc == m; });
      out += fmt::format("  {:>20}",
                         cell == w->cells.end() ? std::string("-") : heap_cell_text(*cell));
    }
    out += "\n";
  }
}

void replay_lines(std::string& out, const model::document& r) {
  for (const auto& w : r.workloads) {
    if (w.kind != "trace") continue;
    out += fmt::format("replay of {}: ns per call (x = {} / this, 95 % interval)\n", w.name,
                       baseline_name(w));
    for (const auto& c : w.cells) {
      const auto* f = c.figures.as<replay_cell_figures>();
      const std::string what =
          c.head.status == "ok" && f != nullptr && f->replay
              ? fmt::format("{:.1f} ns  {}", f->replay->ns_per_call.median, speedup_text(c.vs_std))
              : status_text(c.head.status);
      out += fmt::format("  {:<40} {}\n", replay_cell_label(c.head), what);
    }
  }
}

void peer_line(std::string& out, const model::document& r, const model::workload& first) {
  std::size_t met = 0, judged = 0;
  bool any = false;
  std::string missed;
  for (const auto& w : r.workloads) {
    const auto* f = w.figures.as<batch_workload_figures>();
    if (f == nullptr) continue;
    any = any || !f->peer_verdicts.empty();
    const auto verdict =
        std::find_if(f->peer_verdicts.begin(), f->peer_verdicts.end(),
                     [&](const peer_verdict& v) { return v.malloc == w.baseline.malloc; });
    if (verdict == f->peer_verdicts.end() || verdict->verdict == "not_judged") continue;
    ++judged;
    if (verdict->verdict == "met")
      ++met;
    else
      missed += (missed.empty() ? "" : ", ") + w.name;
  }
  if (!any) return;
  out += fmt::format(
      "alloclab vs peers ({}): best alloclab beats every peer on {} of {} workloads{}\n",
      first.baseline.malloc, met, judged,
      missed.empty() ? "" : "; missed: " + missed + " (reasons in report.md)");
}

}  // namespace

std::string render_headline(const nlohmann::json& results) {
  return render_headline(model::from_json(results));
}

std::string render_headline(const model::document& r) {
  std::string out = r.debug_build ? "DEBUG BUILD — numbers are meaningless\n" : "";
  if (r.smoke_test) out += "SMOKE TEST (--quick) — do not quote these numbers\n";
  const model::workload* first = nullptr;
  std::size_t name_width = 8;
  for (const auto& w : r.workloads) {
    name_width = std::max(name_width, w.name.size());
    if (is_lab(w) && first == nullptr) first = &w;
  }
  const bool any_ratio =
      std::any_of(r.workloads.begin(), r.workloads.end(),
                  [](const model::workload& w) { return has_baseline_timing(w); });
  if (first != nullptr && !any_ratio)
    out += fmt::format(
        "no speed table: this run has no timed {} cell to divide by; add std to --strategies\n",
        baseline_name(*first));
  if (first != nullptr && any_ratio) lab_lines(out, r, *first, name_width);
  heap_lines(out, r);
  replay_lines(out, r);
  if (first != nullptr) peer_line(out, r, *first);
  out += budget_headline(r);
  out += claims_tally(r.claims);
  return out;
}

}  // namespace alloclab::lab
