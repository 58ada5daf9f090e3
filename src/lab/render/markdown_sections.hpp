// report.md's sections that markdown.cpp assembles: each frame's (frames/<frame>/
// report_markdown.cpp, named by its frame-table row), the closing sections every report shares and
// the seeds' published tables. Each appends to `md` from the results model `r` alone, and a
// frame's section writes nothing when its frame has no data in `r`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/claims.hpp"

namespace alloclab::lab::model {
struct document;
}

namespace alloclab::lab::markdown {

void batch_section(std::string& md, const model::document& r);
// The batch frame's opening sections (headline, peers, placement) and closing workload tables,
// through its row's render_summary and render_details.
void batch_summary_sections(std::string& md, const model::document& r);
void batch_workload_sections(std::string& md, const model::document& r);
// Each frame's lines in the console summary (render_headline), through its row's console_lines.
void batch_console_lines(std::string& out, const model::document& r);
void heap_console_lines(std::string& out, const model::document& r);
void replay_console_lines(std::string& out, const model::document& r);
// The heap study's paragraphs in the Method section, through its row's method_lines.
void heap_method_lines(std::string& md, const model::document& r);
void heap_section(std::string& md, const model::document& r);
void replay_section(std::string& md, const model::document& r);
void memory_section(std::string& md, const model::document& r);
void serve_section(std::string& md, const model::document& r);

// The run's time account and the machine's noise (markdown_budget.cpp): the budget section, the
// noise line under the title, and the console summary's budget line ("" when not budgeted).
void budget_section(std::string& md, const model::document& r);
void noise_line(std::string& md, const model::document& r);
std::string budget_headline(const model::document& r);

// Every report's closing sections (markdown_method.cpp): how the run measured, and the machine.
void method_section(std::string& md, const model::document& r);
void environment_section(std::string& md, const model::document& r);

// Where a frame's cells stand in the seeds' published tables (markdown_seed_tables.cpp).
struct seed_table_cells {
  const char* ratio_column;  // what "vs baseline" compares
  // The frame measured the workload a table is of (else the table is left out).
  std::function<bool(const std::string& workload)> measured;
  // "| p50 | p99 | throughput | ratio |" of the cell of that workload for a published row.
  std::function<std::string(const std::string& workload, const model::published_row& row)> columns;
};

// The seeds' published tables of `frame` ("batch" or "serve"), from the results'
// `published_tables`, each row beside this run's cell.
void published_tables(std::string& md, const model::document& r, const std::string& frame,
                      const seed_table_cells& cells);

// The columns of a row whose cell did not give any: the cell's status, or "not in this run" for
// a row without a cell (status empty).
std::string unmeasured_seed_columns(const std::string& status);

// The run's cell for a published row among `cells` (same strategy and malloc, never the
// placement twin): its `measured(cell)` columns, or why there are none ("" from `measured`: the
// cell has no number).
template <class Cell, class Measured>
std::string published_row_columns(const std::vector<Cell>& cells, const model::published_row& row,
                                  const Measured& measured) {
  for (const Cell& c : cells)
    if (c.head.strategy == row.strategy && c.head.malloc == row.malloc && !c.head.placement_twin) {
      std::string columns = measured(c);
      return columns.empty() ? unmeasured_seed_columns(c.head.status) : columns;
    }
  return unmeasured_seed_columns("");
}

}  // namespace alloclab::lab::markdown
