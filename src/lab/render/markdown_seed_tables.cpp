// report.md: the tables the seeds published (the results' `published_tables`, copied from
// claims/seed_claims.json), each row beside the same variant measured in this run. The frame
// decides where the run's figures come from (seed_table_cells): a batch workload's cells, or the
// served variants' hey runs.
#include <string>

#include <fmt/format.h>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "model/document.hpp"

namespace alloclab::lab::markdown {
namespace {

void published_table(std::string& md, const seed_table_cells& cells,
                     const model::published_table& table) {
  const std::string unit = table.unit == "ms" ? "ms" : "µs";
  const std::vector<model::published_row>& rows = table.rows;
  md += fmt::format("### {}\n\n{} To fill every row: `{}`.\n\n", table.title, table.about,
                    table.fill_with);
  md += table_head({text_column(fmt::format("seed {} variant", table.seed)), text_column("here"),
                    figure_column("p50"), figure_column("p99"), figure_column("throughput"),
                    figure_column(cells.ratio_column), figure_column("seed p50"),
                    figure_column("seed p99"), figure_column("seed throughput"),
                    figure_column(fmt::format("seed throughput vs {}", rows.at(0).variant))});
  const double first_throughput = rows[0].throughput_per_s;
  for (const model::published_row& row : rows)
    md +=
        fmt::format("| {} | {} @ {} {} {:.2f} {} | {:.2f} {} | {:.0f}/s | {:.3f}× |\n", row.variant,
                    row.strategy, row.malloc, cells.columns(table.workload, row), row.p50, unit,
                    row.p99, unit, row.throughput_per_s, row.throughput_per_s / first_throughput);
  md += "\n";
}

}  // namespace

std::string unmeasured_seed_columns(const std::string& status) {
  return status.empty() ? "| not in this run | | | |"
                        : fmt::format("| **{}** | | | |", status_text(status));
}

void published_tables(std::string& md, const model::document& r, const std::string& frame,
                      const seed_table_cells& cells) {
  for (const model::published_table& table : r.published_tables)
    if (table.frame == frame && cells.measured(table.workload)) published_table(md, cells, table);
}

}  // namespace alloclab::lab::markdown
