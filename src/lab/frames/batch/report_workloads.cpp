// report.md's closing tables of the batch frame, from the results model: per lab workload, its
// footprint and every cell's figures. The report skeleton (render/markdown.cpp) places them
// through the frame's row (render_details), after the failures.
#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "frames/batch/figures.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"
#include "render/units.hpp"
#include "text/plural.hpp"

namespace alloclab::lab::markdown {
namespace {

// What a timed cell's figures stand on: "3 × 2000" (processes × samples per repetition).
std::string stands_on(const model::cell& c) {
  const model::timing& t = *c.timing;
  if (t.repetition_medians_ns.empty()) return "-";
  return fmt::format("{} × {}", c.head.processes, t.samples / t.repetition_medians_ns.size());
}

void footprint_text(std::string& md, const model::workload& w, const model::document& r) {
  const auto* figures = batch_figures_of(w);
  const auto& f = figures == nullptr ? std::optional<footprint>() : figures->footprint;
  if (f)
    md += fmt::format(
        "Per iteration (tracking pass): {} allocations, {} B requested, peak {} B live, largest "
        "request {} B, bump-arena footprint {} B → arenas get {} B. Checksum {}.",
        f->allocations, f->bytes_requested, f->peak_bytes, f->largest_request,
        f->monotonic_footprint, f->suggested_arena_bytes, w.checksum);
  if (w.batched)
    md += fmt::format(
        " **Batched:** an iteration is shorter than 50× the clock overhead ({:.0f} ns), so each "
        "sample is the mean of {} back-to-back iterations; percentiles are of batch means.",
        r.timer.batch_threshold_ns, w.batch_size);
  if (f && f->allocations <= 2)
    md += fmt::format(
        " **Note:** only {} per iteration; the rest is container and copy work, so "
        "differences of a few percent here are code generation and code layout, not the allocator.",
        counted(f->allocations, "allocation"));
}

std::string workload_row(const model::document& r, const model::workload& w, const model::cell& c,
                         const shown_intervals& shown) {
  std::string name = cell_label(c.head, several_mallocs(r));
  if (c.head.warning) name = "⚠ " + name;
  const auto* f = c.figures.as<batch_cell_figures>();
  const bool counted = f != nullptr && f->heap;
  const std::string allocs = counted ? format_count(f->heap->allocations_per_iteration) : "-";
  const std::string bytes = counted ? format_count(f->heap->bytes_per_iteration) : "-";
  const std::string fallbacks = f != nullptr && f->upstream_fallbacks_per_iteration
                                    ? format_count(*f->upstream_fallbacks_per_iteration)
                                    : "-";
  if (!c.timing) {
    const std::string& status = c.head.status;
    return fmt::format("| {} | {} | | | | | {} | {} | {} | | | {} |\n", name,
                       status == "not_applicable" ? "n/a"
                       : status == "overflowed"   ? "**withheld**"
                                                  : "**" + status_text(status) + "**",
                       allocs, bytes, fallbacks, c.head.reason.value_or(""));
  }
  const model::timing& t = *c.timing;
  return fmt::format(
      "| {} | {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {} | {} | {} |\n", name,
      format_ns(t.p50_ns), format_ns(t.p99_ns), format_ns(t.jitter_ns), 100 * t.cv,
      format_rate(t.throughput_per_s), allocs, bytes, fallbacks,
      c.os ? fmt::format("{:.2f}", c.os->minor_faults_per_1000_iterations) : std::string("-"),
      stands_on(c), is_baseline(w, c) ? std::string("baseline") : vs_baseline_text(r, w, c, shown));
}

void workload_table(std::string& md, const model::workload& w, const model::document& r,
                    const shown_intervals& shown) {
  const bool with_malloc = several_mallocs(r);
  md += fmt::format("### {}\n\n{}\n\n", w.name, w.description);
  footprint_text(md, w, r);
  md += "\n\n" +
        table_head(
            {text_column(with_malloc ? "strategy @ malloc" : "strategy"), figure_column("p50"),
             figure_column("p99"), figure_column("jitter (p99−p50)"), figure_column("CV"),
             figure_column("throughput"), figure_column("heap allocs/it"),
             figure_column("heap B/it"), figure_column("fallbacks/it"),
             figure_column("faults/1k it"), figure_column("processes × samples/rep"),
             figure_column(fmt::format("vs {} (p50)", with_malloc ? baseline_name(w) : "std"))});
  for (const auto& c : w.cells)
    if (!c.head.placement_twin) md += workload_row(r, w, c, shown);
  for (const auto& c : w.cells)
    if (c.head.warning)
      md += fmt::format("\n⚠ {}: {} (seed 000's bug 1, kept on purpose).\n",
                        cell_label(c.head, with_malloc), *c.head.warning);
  md += "\n";
}

}  // namespace

void batch_workload_sections(std::string& md, const model::document& r) {
  if (std::none_of(r.workloads.begin(), r.workloads.end(), [](const auto& w) { return is_lab(w); }))
    return;
  md += "## Workloads\n\n";
  const shown_intervals shown = vs_baseline_intervals(r);
  if (shown.paired > 0)
    md +=
        "The last column is the headline's: the stop rule's paired ratio and interval, the "
        "interval its verdict came from.\n\n";
  for (const auto& w : r.workloads)
    if (is_lab(w)) workload_table(md, w, r, shown);
}

}  // namespace alloclab::lab::markdown
