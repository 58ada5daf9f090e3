// The heap frame's summaries at the top of results.json, computed once when the results are
// built; the report only prints them.
//   heap_retention: per malloc, the median and range over the run's heap workloads of the share
//     of the RSS growth still resident at each settle time (each cell's `memory.retention`);
//   retention_timelines: per variant, the timelines' shares still resident at the horizon.
//
// Example:
//   std::vector<cell_retention> cells = ...;  // each heap cell that measured its memory
//   heap_document_figures doc;
//   doc.heap_retention = alloclab::lab::heap_retention_summary(cells);
//   // doc.heap_retention[0].after_free_1s->median: 0.4 = 40 % still held after 1 s
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frames/heap/figures.hpp"

namespace alloclab::lab {

// One heap cell that measured its memory (status ok), as the retention summary takes it.
struct cell_retention {
  std::string malloc;
  retention_figures retention;
  std::string purge_call;  // its purge call's method
};

// One row per malloc, in the order the cells first name it: `workloads` counts its cells with a
// figure right after the last free, `purge_call` is its last cell's, and each settle time's
// {median, min, max} is absent (null) when no cell has that figure. Empty without cells.
std::vector<retention_row> heap_retention_summary(const std::vector<cell_retention>& cells);

// results.json's `retention_timelines` (none when no timeline ran): per variant (malloc,
// jemalloc's background thread, idle or light load), each FIFO workload's share of its growth
// still resident at the horizon, RSS minus LazyFree (`kept_unreclaimable`) and RSS alone
// (`kept`), and their medians over the workloads; then every timeline as the worker measured it.
std::optional<retention_timelines_figures> retention_timelines_summary(
    std::vector<retention_timeline_run> timelines, double horizon_s);

}  // namespace alloclab::lab
