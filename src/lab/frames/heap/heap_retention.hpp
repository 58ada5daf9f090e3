// The heap frame's retention summary: per malloc, the median and range over the run's heap
// workloads of the share of the RSS growth still resident at each settle time
// (`memory.retention` of each cell). Built once with the results (`heap_retention`); the report
// only prints it.
//
// Example:
//   nlohmann::json results = ...;  // with "workloads"
//   results["heap_retention"] = alloclab::lab::heap_retention_summary(results["workloads"]);
//   // results["heap_retention"][0]["after_free_1s"]["median"]: 0.4 = 40 % still held after 1 s
#pragma once

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// One object per malloc, in the order the cells first name it: `malloc`, `workloads` (how many
// heap cells gave a figure right after the last free), `purge_call` and, for each of
// `after_free_0ms`, `after_free_100ms`, `after_free_1s`, `after_purge`, `{median, min, max}` or
// null when no cell has that figure. Empty when no heap cell measured its memory.
nlohmann::json heap_retention_summary(const nlohmann::json& workloads);

// results.json's `retention_timelines` (null when none ran): per variant (malloc, jemalloc's
// background thread, idle or light load), each FIFO workload's share of its growth still
// resident at the horizon, RSS minus LazyFree (`kept_unreclaimable`) and RSS alone (`kept`), and
// their medians over the workloads; then every timeline as the worker measured it.
nlohmann::json retention_timelines_summary(const nlohmann::json& timelines, double horizon_s);

}  // namespace alloclab::lab
