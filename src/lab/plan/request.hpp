// What the user asked for, before validation: the input of the plan stage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/usage_error.hpp"
#include "mallocs/knobs.hpp"
#include "plan/frame_slots.hpp"

namespace alloclab::lab {

// --placement-check: re-measure glibc cells under the variant without memmove's copy cliff.
// auto: only when this machine's probe finds a cliff; always: whatever the probe finds (tests
// force both branches with always/never); never: not at all.
enum class placement_check_mode { automatic, always, never };

struct run_request {
  std::vector<std::string> workloads;   // empty: all lab workloads
  std::vector<std::string> strategies;  // empty: all
  std::vector<std::string> frames;      // --frames; empty: the frames the workloads belong to
  std::optional<std::size_t> iterations;
  std::optional<std::size_t> repetitions;
  std::uint64_t seed = 42;
  std::string out = "results";
  bool quick = false;
  bool allow_debug = false;
  std::vector<std::string> mallocs;  // --malloc: registry names, "all", library paths; empty: glibc
  bool skip_missing = false;         // a named malloc that is not installed does not fail the run
  std::optional<double> cell_timeout_seconds;  // per measuring process (one cell, one part)
  std::optional<std::size_t> processes;        // --processes: fresh processes per cell
  placement_check_mode placement_check = placement_check_mode::automatic;
  std::string command_line;
  std::string shard;        // --shard: "K/N", "auto", or empty (the whole plan)
  std::string shard_costs;  // --shard-costs: an earlier run's results.json to weigh workloads by
  // Knob variants of the mallocs, each a cell of its own (`replay --variants`, parsed).
  std::vector<alloclab::mallocs::variant> malloc_variants;
  // Each frame's own options, by frame name, as its struct (frames/<frame>/run_options.hpp):
  // filled by the options its row registers (add_run_options) or by its own command (the
  // replay frame's trace, from `alloclab replay`).
  frame_slots frame_options;
  // --budget: wall time of the whole run ("5m", "300s", "0" = the fixed plan); --full = "0".
  std::optional<std::string> budget;
  bool full = false;
  bool unpaired = false;  // --unpaired: a budgeted run's cells one process at a time (no rings)
  std::optional<double> repetition_ms;  // --repetition-time: timed work per repetition (budget)
  bool wait_for_lock = false;           // --wait: queue behind another lab run
  // --simulate / --no-simulate: each batch and heap cell's simulated cost on a second CPU
  // (docs/simulated-cost.md). Unset: on in a budgeted run (until the budget ends), else off.
  std::optional<bool> simulate;
};

}  // namespace alloclab::lab
