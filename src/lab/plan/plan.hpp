// The plan stage: a validated run_request becomes a list of cells (workload x strategy x malloc,
// each in one frame) and a schedule of tasks. A task is one cell measured in one fresh process;
// every cell gets `processes` tasks, and the schedule interleaves the cells' tasks in a shuffled
// order, so machine drift hits every cell alike while no cell shares a process with another.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <alloclab/memory_budget.hpp>
#include <nlohmann/json.hpp>

#include "plan/malloc_choice.hpp"
#include "plan/request.hpp"

namespace alloclab::lab {

struct placement_probe;  // measure/copy_cliff.hpp
namespace model {
struct placement_facts;  // model/document.hpp
}

// A frame is how a cell is measured: one folder frames/<name>/ whose row implements each stage's
// interface (plan/frame_planner.hpp and its peers; main/frame_registry.cpp lists the rows). The
// named values are the frames a shared stage still names; another frame's row takes a number of
// its own above them (`frame{6}`, ...), unique in the registry (tests/lab/frame_table_test.cpp).
enum class frame : std::uint8_t {
  batch,   // a lab workload's iterations in a loop, in a fresh worker process
  heap,    // a heap-study kernel (seed 003) under the process-wide malloc, in a fresh worker
  memory,  // a memory workload over time (budget, huge pages) under the malloc, in a fresh worker
  serve,   // a lab workload served over HTTP, one iteration per request, in a fresh server process
  replay,  // a recorded trace replayed under a malloc or through a resource, in a fresh worker
  program  // the user's own program under each malloc (`alloclab try`), never planned by `run`
};
const char* to_string(frame f);
// The frame named `name` (as --frames spells it); throws usage_error listing the valid names.
frame frame_from_string(const std::string& name);
// The name of every frame the plan can measure (`run`, `replay`), in table order.
std::vector<std::string> frame_names();

// Which names of --workloads a frame's cells come from: a trace is named by `alloclab replay`, the
// user's program by `alloclab try`.
enum class workload_kind { lab, heap, memory, trace, program };

// The strategy of a cell with no in-process strategy (the heap study's): the process malloc alone.
inline constexpr const char* heap_strategy = "malloc";

struct cell_spec {
  std::string workload;
  std::string strategy;  // heap frame: always "malloc"
  malloc_choice malloc;
  lab::frame frame = frame::batch;
  // Set when the cell re-measures another with GLIBC_TUNABLES removing the memmove cliff.
  bool copy_cliff_removed = false;
};

// One cell measured in one process: `repetitions` of its repetitions.
struct task {
  std::size_t cell = 0;  // index into run_plan::cells
  std::size_t part = 0;  // 0-based process index of this cell
  std::size_t repetitions = 0;
  std::uint64_t order_seed = 0;
};

// The shared sizes of a plan; each frame's own are its struct in run_plan::frame_sizes.
struct measurement_sizes {
  std::size_t samples_per_repetition = 0;  // batch frame: timed samples per repetition
  std::size_t repetitions = 0;             // batch frame: over all processes
  std::size_t processes = 0;               // fresh processes per cell
  std::size_t counted_iterations = 16;     // untimed heap-counting pass
  std::uint64_t seed = 42;
  bool quick = false;
  // The default plan (no sizes, workloads or frames asked for): the seed claims' cells.
  bool seed_plan = false;
  // A budgeted run (plan/budget.hpp): the schedule is only the first round; the scheduler adds
  // processes where comparisons are still open until the budget is spent. 0: the fixed plan.
  double budget_seconds = 0;
  std::size_t max_processes = 0;  // per cell in a budgeted run
  double repetition_ms = 0;       // batch frame: timed work per repetition (0: fixed samples)
};

// Workload names by the kind of workload they are, each list in its catalogue's order: what
// --workloads selects, and the plan's workloads.
struct workload_selection {
  std::vector<std::string> lab;     // batch and serve frames
  std::vector<std::string> heap;    // heap frame
  std::vector<std::string> memory;  // memory frame
  // The names of `kind` (lab, heap or memory); throws std::logic_error for a kind that
  // --workloads does not name (a trace, a program), rather than handing out another kind's list.
  std::vector<std::string>& names(workload_kind kind);
  const std::vector<std::string>& names(workload_kind kind) const;
};

struct run_plan {
  std::vector<frame> frames;  // the frames that have cells, table order
  // Each frame's repetitions of a cell over all its processes, from its row (resolve_repetitions).
  std::map<frame, std::size_t> repetitions;
  workload_selection workloads;         // by kind, registry order
  std::vector<std::string> strategies;  // batch frame, registry order
  std::vector<malloc_choice> mallocs;   // the first is the baseline malloc
  std::vector<cell_spec> cells;
  std::vector<task> schedule;
  measurement_sizes sizes;
  std::chrono::milliseconds cell_timeout{};
  bool skip_missing = false;
  bool allow_debug = false;
  // A budgeted run times the cells of a comparison group (a workload in the batch or heap frame)
  // in lockstep rings, so its comparisons stand on paired slices (lockstep/ring.hpp).
  bool lockstep = false;
  placement_check_mode placement_check = placement_check_mode::automatic;
  // The glibc variant without memmove's copy cliff, measured beside plain glibc for every lab
  // cell so the report can tell placement-driven ratios apart (empty: not measured).
  std::string placement_twin;
  // Each frame's own sizes and options, by frame name, as its struct (frames/<frame>/
  // run_options.hpp), made by its row's resolve_sizes from the request.
  frame_slots frame_sizes;
};

// The registry name of that variant.
inline constexpr const char* placement_twin_malloc = "glibc_nocliff";

// Suite sizes. Default: about 20 minutes of measuring on 2 idle cores; quick: a few minutes.
inline constexpr std::size_t default_samples = 2000;
inline constexpr std::size_t default_repetitions = 15;
inline constexpr std::size_t quick_samples = 200;
inline constexpr std::size_t quick_repetitions = 6;
inline constexpr std::size_t default_processes = 3;
inline constexpr std::size_t quick_processes = 2;
inline constexpr double default_cell_timeout_seconds = 600;

// --workloads split into lab workloads and heap-study workloads ("fifo", "lifo", "xthread" name
// a family). Empty request: every lab workload, no heap workload. Throws usage_error.
workload_selection split_workloads(const std::vector<std::string>& requested);

// True when the plan measures frame `f`.
bool has_frame(const run_plan& plan, frame f);

// What the plan reads of the machine it runs on; tests point it at fixtures (tests/data/cgroup)
// so both sides of each branch are tested on any host.
struct host_view {
  alloclab::memory_budget_options cgroup;  // where the memory frame looks for a cgroup limit
};

// Validates everything and builds the cells and the schedule; throws usage_error.
// `sanitized`: this binary runs under AddressSanitizer (only plain glibc, no heap frame).
run_plan make_plan(const run_request& request, bool sanitized, const host_view& host = {});

// Sets plan.repetitions from each frame's row once the sizes are final (make_plan does; a plan
// read back from a shard file needs it too), so later stages read a value, not the frame table.
void resolve_repetitions(run_plan& plan);

// An empty name comes from a stray comma (`--workloads ,`): says so (usage_error naming `option`)
// instead of guessing.
void refuse_empty_names(const std::vector<std::string>& names, const char* option);

// A byte count as --memory-budget and --huge-table-bytes take it: digits with an optional K, M, G
// or T suffix (powers of 1024, "MiB" also accepted). Throws usage_error naming `option`.
std::uint64_t parse_byte_count(const std::string& text, const char* option);

// Plain glibc measured, the twin itself not asked for, lab workloads to measure, and not a
// sanitizer build (placement_twin.cpp, like the functions below).
bool wants_placement_twin(const run_plan& plan, bool sanitized);
// Removes the placement twin's cells and tasks (e.g. when the machine has no copy cliff).
void drop_placement_twin(run_plan& plan);
// Keeps the cells `keep` accepts and their tasks, in the plan's order (tasks renumbered).
void keep_cells(run_plan& plan, const std::function<bool(const cell_spec&)>& keep);

// Whether the twin stays after this machine's placement probe: under `automatic`, only when the
// probe found a cliff. Pure, so both branches are tested on any CPU.
bool keep_placement_twin(placement_check_mode mode, bool probe_found_cliff);
// The plan's placement step, once the probe has run: drops the twin unless keep_placement_twin,
// and returns results.json's environment.placement (the probe's figures and the mode, `check`).
model::placement_facts settle_placement_twin(run_plan& plan, const placement_probe& probe);

// "auto", "always", "never" (the option's words) and back; throws usage_error on another word.
const char* to_string(placement_check_mode mode);
placement_check_mode parse_placement_check_mode(const std::string& word);

// The schedule alone: `processes` rounds, each a shuffled pass over every cell; cell i's
// `repetitions[i]` are shared out over min(processes, repetitions[i]) of the rounds. Pure.
std::vector<task> interleaved_schedule(const std::vector<std::size_t>& repetitions,
                                       std::size_t processes, std::uint64_t seed);

}  // namespace alloclab::lab
