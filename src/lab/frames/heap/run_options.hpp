// The heap frame's own options of `alloclab run` and its sizes: what its row registers on `run`
// (add_heap_run_options, bound to its slot of run_request::frame_options) and what its
// resolve_sizes makes of them (its slot of run_plan::frame_sizes), read back by its planner,
// executor and results through heap_sizes_of.
#pragma once

#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

#include "plan/frame_slots.hpp"
#include "plan/plan.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

inline constexpr const char* heap_frame_name = "heap";  // its slots' key, as --frames spells it

// Budgeted runs: the smallest run a heap claim is judged on (claim_rules::min_heap_iterations).
inline constexpr std::size_t budget_heap_iterations = 1000;
// How long retention is watched after the last free. jemalloc's default decay is 10 s, and
// measured here it gave memory back 10 to 25 s after the last free (docs/budget.md).
inline constexpr double default_retention_horizon_seconds = 30;

struct heap_run_options {
  std::optional<double> retention_horizon_seconds;  // --retention-horizon
};

struct heap_plan_sizes {
  std::size_t iterations = 0;      // batches of 100 pairs per repetition
  std::size_t repetitions = 0;     // over all processes
  double retention_horizon_s = 0;  // retention timelines this long (0: none)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(heap_plan_sizes, iterations, repetitions,
                                                retention_horizon_s)

// Registers --retention-horizon on `run` (the frame's row's add_run_options).
void add_heap_run_options(CLI::App& run, frame_slots& options);

inline const heap_plan_sizes& heap_sizes_of(const run_plan& plan) {
  return plan.frame_sizes.get<heap_plan_sizes>(heap_frame_name);
}

}  // namespace alloclab::lab
