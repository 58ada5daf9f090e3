// report.md: the batch frame's section, from the results model. The per-workload tables close the
// report (render/markdown.cpp), after the failures.
#include <string>

#include <fmt/format.h>

#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

const model::workload* lab_workload(const model::document& r, const std::string& name) {
  for (const model::workload& w : r.workloads)
    if (w.name == name && w.kind == "lab") return &w;
  return nullptr;
}

// "| p50 | p99 | throughput | speedup |" of a timed cell, "" for one without a number.
std::string batch_seed_columns(const model::document& r, const model::workload& w,
                               const model::cell& cell, const shown_intervals& shown) {
  if (!cell.timing) return "";
  const model::timing& t = *cell.timing;
  return fmt::format(
      "| {} | {} | {} | {} |", format_ns(t.p50_ns), format_ns(t.p99_ns),
      format_rate(t.throughput_per_s),
      is_baseline(w, cell) ? std::string("baseline") : vs_baseline_text(r, w, cell, shown));
}

}  // namespace

// The seeds' published tables beside this run's cells.
void batch_section(std::string& md, const model::document& r) {
  const shown_intervals shown = vs_baseline_intervals(r);
  const seed_table_cells cells{
      "vs baseline (p50)",
      [&r](const std::string& name) { return lab_workload(r, name) != nullptr; },
      [&r, &shown](const std::string& name, const model::published_row& row) {
        const model::workload& w = *lab_workload(r, name);
        return published_row_columns(w.cells, row, [&](const model::cell& cell) {
          return batch_seed_columns(r, w, cell, shown);
        });
      }};
  std::string seed_tables;
  published_tables(seed_tables, r, "batch", cells);
  if (!seed_tables.empty()) md += "## The seeds' published tables, batch frame\n\n" + seed_tables;
}

}  // namespace alloclab::lab::markdown
