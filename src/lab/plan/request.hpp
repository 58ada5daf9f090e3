// What the user asked for, before validation: the input of the plan stage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/usage_error.hpp"
#include "trace/trace_facts.hpp"
#include "mallocs/knobs.hpp"

namespace alloclab::lab {

// `alloclab replay TRACE`: the trace (already read and checked by the command) and the in-process
// resources to replay it through besides the process-wide mallocs.
struct replay_request {
  std::string trace;  // path; empty: no replay frame
  std::string name;   // the workload name of its cells (the file's stem)
  replay_trace_facts facts;
  std::vector<std::string> strategies;  // --strategies of `replay`: replay_resources() names, "all"
  // --variants of `replay`, parsed by the command.
  std::vector<alloclab::mallocs::variant> variants;
};

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
  std::optional<std::string> memory_budget;     // --memory-budget BYTES (memory frame)
  std::optional<std::string> huge_table_bytes;  // --huge-table-bytes BYTES (memory frame)
  std::string command_line;
  std::optional<double> serve_duration_seconds;  // --serve-duration: hey's and wrk's seconds
  std::string shard;        // --shard: "K/N", "auto", or empty (the whole plan)
  std::string shard_costs;  // --shard-costs: an earlier run's results.json to weigh workloads by
  replay_request replay;
  // --budget: wall time of the whole run ("5m", "300s", "0" = the fixed plan); --full = "0".
  std::optional<std::string> budget;
  bool full = false;
  bool unpaired = false;  // --unpaired: a budgeted run's cells one process at a time (no rings)
  std::optional<double> repetition_ms;  // --repetition-time: timed work per repetition (budget)
  std::optional<double> retention_horizon_seconds;  // --retention-horizon (heap frame)
  bool wait_for_lock = false;                       // --wait: queue behind another lab run
  // --simulate / --no-simulate: each batch and heap cell's simulated cost on a second CPU
  // (docs/simulated-cost.md). Unset: on in a budgeted run (until the budget ends), else off.
  std::optional<bool> simulate;
};

}  // namespace alloclab::lab
