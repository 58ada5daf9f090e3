// The budget workload (seed 004's random_memhigh): a service-like loop whose live set grows in
// bursts towards a memory budget and shrinks again, under the process-wide malloc.
//
// A cycle is three phases of requests (each request: 32 operations on blocks of 32 B - 64 KiB,
// sizes log-uniform, every byte written): a burst allocates until the live set reaches a random
// 90-105 % of the room the budget leaves (budget - usage at start), a shrink frees random blocks
// down to 10-30 %, and a steady phase replaces blocks one for one at that size. Strategy
// `no_watcher` just serves. `budget_trim` runs an alloclab::budget_watcher (soft 90 %, hard 97 %,
// period 10 ms) that purges the live malloc when usage crosses up into soft, and at the service's
// quiescent point (end of a shrink) purges again while the watcher still reports soft or hard.
// Usage is what the budget reads: the cgroup's memory.current when the budget is the cgroup's
// limit, else RSS.
#pragma once

#include <nlohmann/json.hpp>

#include "process/rss_series.hpp"
#include "frames/memory/memory_workloads.hpp"

namespace alloclab::lab {

inline constexpr const char* no_watcher_strategy = "no_watcher";
inline constexpr const char* budget_trim_strategy = "budget_trim";

// Milliseconds `series` spends at or above `threshold` bytes inside [from_ms, to_ms], each point
// standing for the time until the next one; `cgroup` reads cgroup_bytes instead of rss_bytes.
double ms_at_or_above(const process::rss_series& series, bool cgroup, double threshold,
                      double from_ms, double to_ms);

// The memory worker's result document (see memory_figures in frames/memory/process_figures.hpp).
// Throws std::runtime_error when the budget leaves no room for the workload.
nlohmann::json run_budget_service(const memory_spec& spec);

}  // namespace alloclab::lab
