// report.md: the memory frame: budget compliance and huge-page coverage, read from the results
// model (model/document.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/memory/figures.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string throughput_vs_first(const memory_frame_figures& frame) {
  if (!frame.vs_first_strategy || !frame.vs_first_strategy->throughput_ratio) return "baseline";
  const model::estimate& e = *frame.vs_first_strategy->throughput_ratio;
  return ratio_text(e.value, e.interval);
}

// The cell's memory-frame figures, or null (a cell without a number).
const memory_frame_figures* frame_of(const model::cell& cell) {
  const memory_cell_figures* f = cell.figures.as<memory_cell_figures>();
  return f == nullptr || !f->memory_frame ? nullptr : &*f->memory_frame;
}

void budget_events(std::string& md, const model::cell& cell, const budget_figures& b) {
  const std::vector<budget_event>& events = b.events;
  md += fmt::format("\n{} @ {}: {} events in process 1", cell.head.strategy, cell.head.malloc,
                    events.size());
  const std::size_t shown = std::min<std::size_t>(events.size(), 8);
  md += shown < events.size() ? fmt::format(" (first {})", shown) : std::string();
  md += shown == 0 ? ".\n" : ":\n\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const budget_event& e = events[i];
    const bool purge = e.kind == "service_purge";
    md += fmt::format(
        "- {:.0f} ms: {} at {:.0f} % of the budget{}\n", e.t_ms,
        purge ? std::string("service purge (quiescent point)")
              : fmt::format("{} → {}", e.from, e.to),
        100 * e.fraction,
        purge ? fmt::format(", usage after {}",
                            format_bytes(static_cast<double>(e.usage_after_bytes.value_or(0))))
              : (e.purged ? ", purged" : ""));
  }
}

// A row for a cell without memory-frame figures (both tables have eight columns); false when
// the cell has figures to show.
bool unmeasured_row(std::string& md, const model::cell& c) {
  const std::string state = c.head.status == "ok" ? "" : status_text(c.head.status);
  if (state.empty() && frame_of(c) != nullptr) return false;
  md += fmt::format("| {} | {} | {} | | | | | |\n", c.head.malloc, c.head.strategy,
                    state.empty() ? "-" : state);
  return true;
}

const memory_workload_spec& spec_of(const model::workload& w) {
  static const memory_workload_spec none;
  const memory_workload_figures* f = w.figures.as<memory_workload_figures>();
  return f == nullptr ? none : f->memory_spec;
}

void budget_table(std::string& md, const model::workload& w) {
  const memory_workload_spec& spec = spec_of(w);
  md += fmt::format(
      "### Budget: `budget_bursts` against {} ({})\n\n"
      "Peak usage is the highest 10 ms sample of what the budget reads (RSS, or the cgroup's "
      "usage when the budget is the cgroup's limit). Over soft: share of the run at or above "
      "90 % of the budget (median over repetitions). Throughput: this strategy's requests per "
      "second ÷ `no_watcher`'s under the same malloc, 95 % bootstrap interval over repetitions "
      "(< 1: trimming costs).\n\n",
      format_bytes(static_cast<double>(spec.budget_bytes.value_or(0))),
      spec.budget_source.value_or(""));
  md += table_head({text_column("malloc"), text_column("strategy"), figure_column("peak usage"),
                    figure_column("peak ÷ budget"), figure_column("over soft"),
                    figure_column("throughput vs no_watcher"), figure_column("crossings"),
                    figure_column("purges (watcher / service)")});
  std::vector<const model::cell*> trimmed;
  for (const model::cell& c : w.cells) {
    if (unmeasured_row(md, c)) continue;
    const memory_frame_figures& frame = *frame_of(c);
    const budget_figures& b = *frame.budget;
    if (b.watcher) trimmed.push_back(&c);
    md += fmt::format("| {} | {} | {} | {:.2f} | {:.0f} % | {} | {} | {} / {} |\n", c.head.malloc,
                      c.head.strategy, format_bytes(static_cast<double>(b.peak_usage_bytes)),
                      b.peak_fraction, 100 * b.time_over_soft_share, throughput_vs_first(frame),
                      b.crossings, b.watcher_purges, b.service_purges);
  }
  if (!trimmed.empty()) md += "\nWhat the watcher did, and when (ms since the worker started):\n";
  for (const model::cell* c : trimmed) budget_events(md, *c, *frame_of(*c)->budget);
  md += "\n";
}

void huge_page_table(std::string& md, const model::workload& w) {
  md += fmt::format(
      "### Huge pages: `huge_table` ({} table, random read-modify-writes)\n\n"
      "Time per batch of 4096 accesses at p50; speed = `plain_pages` mean ÷ this cell's, 95 % "
      "interval over repetitions. Backed: the table's `AnonHugePages` in `/proc/self/smaps` "
      "after filling it (lowest over the processes).\n\n",
      format_bytes(static_cast<double>(spec_of(w).table_bytes.value_or(0))));
  md += table_head({text_column("malloc"), text_column("strategy"), text_column("backing"),
                    figure_column("backed by huge pages"), figure_column("p50 / 4096 accesses"),
                    figure_column("speed vs plain_pages"), figure_column("fill faults"),
                    text_column("dTLB load misses")});
  for (const model::cell& c : w.cells) {
    if (unmeasured_row(md, c)) continue;
    const memory_frame_figures& frame = *frame_of(c);
    const huge_page_figures& h = *frame.huge_pages;
    md += fmt::format("| {} | {} | {} | {:.0f} % | {} | {} | {} | {} |\n", c.head.malloc,
                      c.head.strategy, h.backing, 100 * h.huge_backed_share_lowest,
                      format_ns(c.timing->p50_ns), throughput_vs_first(frame), h.fill_minor_faults,
                      h.dtlb_load_misses ? format_count(static_cast<double>(*h.dtlb_load_misses))
                                         : h.dtlb_load_misses_note.value_or(""));
  }
  md += "\n";
}

// The memory workload called `name`, or null.
const model::workload* memory_workload(const model::document& r, const std::string& name) {
  for (const model::workload& w : r.workloads)
    if (w.name == name && w.kind == "memory") return &w;
  return nullptr;
}

}  // namespace

void memory_section(std::string& md, const model::document& r) {
  const model::workload* budget = memory_workload(r, "budget_bursts");
  const model::workload* table = memory_workload(r, "huge_table");
  if (budget == nullptr && table == nullptr) return;
  md += "## Memory frame\n\n";
  if (budget != nullptr) budget_table(md, *budget);
  if (table != nullptr) huge_page_table(md, *table);
}

}  // namespace alloclab::lab::markdown
