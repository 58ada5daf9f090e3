// The batch frame's lines in the console summary a run ends with: the speed table of the lab
// workloads and the peer verdicts' tally.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/batch/figures.hpp"
#include "model/document.hpp"
#include "stats/decision.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"
#include "text/plural.hpp"

namespace alloclab::lab::markdown {
namespace {

// "1.07 faster": a lab cell's speedup with its verdict's one word, its status, "!" for a warning.
std::string headline_cell_text(const model::document& r, const model::workload& w,
                               const model::cell& c) {
  std::string text = cell_state(c.head);
  if (const shown_ratio s = vs_baseline_shown(r, w, c); text.empty() && !s.text.empty())
    text = fmt::format("{:.2f} {}", s.value, s.word);
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
  const bool paired = vs_baseline_intervals(r).paired > 0;  // the stop rule's paired verdicts
  out += fmt::format(
      "speed vs {} at p50 ({}, >1 = faster; faster/slower = decided, same = the same within "
      "±{:g} %, open = open: verdicts in full, with intervals, in report.md; ! = the cell has a "
      "warning, listed below)\n",
      with_malloc ? baseline_name(first) : "std",
      paired ? "the stop rule's paired ratio" : "baseline p50 / cell p50",
      paired ? 100 * default_equivalence_margin : default_noise_floor_percent);
  out += fmt::format("{:<{}}  {:>9}", "workload", name_width, with_malloc ? "base p50" : "std p50");
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += fmt::format("  {:>12}", fmt::format("[{}]", i + 1));
  out += "\n";
  for (const auto& w : r.workloads) {
    if (!is_lab(w)) continue;
    out += fmt::format("{:<{}}  {:>9}", w.name, name_width, baseline_p50_text(w));
    for (const std::string& label : columns) {
      // The first workload's columns: this one may lack the cell.
      const model::cell* found = cell_labelled(w, label, with_malloc);
      out += fmt::format("  {:>12}",
                         found == nullptr ? std::string("-") : headline_cell_text(r, w, *found));
    }
    out += "\n";
  }
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += fmt::format("[{}] {}  ", i + 1, columns[i]);
  out += "\n";
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
  if (!any || judged == 0) return;
  out += fmt::format("alloclab vs peers ({}): best alloclab beats every peer on {} of {}{}\n",
                     first.baseline.malloc, met, lab::counted(judged, "workload"),
                     missed.empty() ? "" : "; missed: " + missed + " (reasons in report.md)");
}

}  // namespace

void batch_console_lines(std::string& out, const model::document& r) {
  const model::workload* first = nullptr;
  std::size_t name_width = 8;
  for (const auto& w : r.workloads) {
    name_width = std::max(name_width, w.name.size());
    if (is_lab(w) && first == nullptr) first = &w;
  }
  if (first == nullptr) return;
  const bool any_ratio =
      std::any_of(r.workloads.begin(), r.workloads.end(),
                  [](const model::workload& w) { return has_baseline_timing(w); });
  if (any_ratio)
    lab_lines(out, r, *first, name_width);
  else
    out += fmt::format(
        "no speed table: this run has no timed {} cell to divide by; add std to --strategies\n",
        baseline_name(*first));
  peer_line(out, r, *first);
}

}  // namespace alloclab::lab::markdown
