// What the plan stage needs of a frame: its planner. Each frame's row fills one
// (frames/<name>/frame.cpp); main/frame_registry.cpp, which alone knows the frames, defines
// frame_planners(), so the plan looks its rows up without reaching into frames/.
//
// | member           | called by                          | does                                  |
// |------------------|------------------------------------|---------------------------------------|
// | id, name         | everyone                           | the frame, as --frames and results    |
// |                  |                                    | spell it                              |
// | measures         | plan, claims, `list`               | which workloads its cells come from   |
// | add_cells        | plan (make_plan)                   | adds the frame's cells; null: `run`   |
// |                  |                                    | never plans it (`alloclab try`)       |
// | repetitions      | plan (resolve_repetitions),        | repetitions of each of its cells      |
// |                  | results (config)                   |                                       |
// | samples_per_     | results (config, when its cells    | timed samples of a repetition, or     |
// | repetition       | lead the run)                      | nullptr: the plan's shared ones       |
// | by_default       | plan (choose_frames)               | measured when --frames is not given   |
// | expected_seconds | run, handed to --shard             | a task's expected wall time, before   |
// |                  | (expected_task_seconds)            | anything is measured, or nullptr      |
// | workloads        | plan, claims, `list`               | the catalogue --workloads names, or   |
// |                  |                                    | nullptr                               |
// | resolve_sizes    | plan (make_plan)                   | its own sizes and options from the    |
// |                  |                                    | request (defaults in its folder), put |
// |                  |                                    | in plan.frame_sizes under its name    |
// | read_sizes       | merge (a shard file's plan)        | its frame_sizes slot from its JSON    |
// | add_run_options, | main (`run`'s options)             | registers its own options of `run`,   |
// | run_options_after|                                    | bound to its slot of                  |
// |                  |                                    | request.frame_options; --help lists   |
// |                  |                                    | them after that shared option (null:  |
// |                  |                                    | last)                                 |
// | requested        | plan (choose_frames), seed plan    | the request names its workload itself |
// |                  |                                    | (a trace, by `alloclab replay`): the  |
// |                  |                                    | plan measures it alone; else nullptr  |
// | own_command_hint | plan (choose_frames)               | what --frames NAME without that       |
// |                  |                                    | request is told                       |
// | selection        | results (config)                   | the workloads and strategies its own  |
// |                  |                                    | command named, as config lists them   |
// | one_repetition_  | plan (budget_cells)                | each process is one repetition (a     |
// | per_process      |                                    | fresh server): a budget adds processes|
// | budgeted         | plan (resolve_budget)              | a budget's stop rule can size its     |
// |                  |                                    | cells                                 |
// | lockstep         | schedule (run_budgeted)            | a workload's cells run as one ring    |
// |                  |                                    | (its workers hold lockstep's gate)    |
// | uses_every_cpu   | schedule (run_budgeted,            | a cell that needs every CPU: the      |
// |                  | run_schedule)                      | simulation pauses while it measures   |
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "workloads/catalogue.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

// What a command of a frame's own named for it (`alloclab replay`: the trace and its resources),
// as results.json's config lists the run's workloads and strategies.
struct own_selection {
  std::vector<std::string> workloads, strategies;
};

struct frame_planner {
  frame id = frame::batch;
  const char* name = "";  // as --frames and results.json spell it
  workload_kind measures = workload_kind::lab;
  // Adds the frame's cells; `lab_mallocs` is plan.mallocs plus the placement twin, if any.
  void (*add_cells)(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs) = nullptr;
  std::size_t (*repetitions)(const run_plan& plan) = nullptr;
  std::size_t (*samples_per_repetition)(const run_plan& plan) = nullptr;
  bool by_default = false;  // measured when --frames is not given (else only when named)
  double (*expected_seconds)(const run_plan& plan, const task& t) = nullptr;
  const workload_catalogue* workloads = nullptr;
  void (*resolve_sizes)(run_plan& plan, const run_request& request,
                        const host_view& host) = nullptr;
  frame_slot (*read_sizes)(const nlohmann::json& sizes) = nullptr;  // e.g. read_slot_as<T>
  void (*add_run_options)(CLI::App& run, frame_slots& options) = nullptr;
  const char* run_options_after = nullptr;  // e.g. "--cell-timeout"
  bool (*requested)(const run_request& request) = nullptr;
  const char* own_command_hint = nullptr;
  own_selection (*selection)(const run_plan& plan) = nullptr;
  bool one_repetition_per_process = false;
  bool budgeted = false;
  // In a budgeted run, the cells of one workload time their repetitions in one lockstep ring
  // (lockstep/ring.hpp): its workers take turns at lockstep's slice gate.
  bool lockstep = false;
  // A cell that needs every CPU while it measures (its threads contend, or a server and its load
  // generator share the machine): work beside the timing (the simulation) pauses for it. nullptr:
  // none of the frame's cells does.
  bool (*uses_every_cpu)(const cell_spec& c) = nullptr;
};

// A stage's own part of every frame's row, with the frame it belongs to: what the stages above
// the plan look their parts up as (e.g. render/frame_report.hpp's frame_reports()).
template <class Part>
struct frame_row {
  frame id;
  const char* name;
  Part part;
};

// Every frame's planner, in the order plans and results list them (main/frame_registry.cpp).
const std::vector<frame_planner>& frame_planners();
// The planner of frame `f` (the first row's for a frame no row has).
const frame_planner& planner_of(frame f);
// The planner whose name (as results.json spells it) is `name`, or nullptr.
const frame_planner* find_planner(const std::string& name);
// A task's expected wall time from its frame's row (`expected_seconds`), before anything is
// measured: what the run deals shards by (plan/shard.hpp's task_cost).
double expected_task_seconds(const run_plan& plan, const task& t);
// Whether one of `tasks` measures a cell that needs every CPU (its frame's uses_every_cpu).
bool uses_every_cpu(const run_plan& plan, const std::vector<task>& tasks);

// Each workload kind --workloads names, with its catalogue (from the first row measuring it), in
// table order.
struct kind_catalogue {
  workload_kind kind;
  const workload_catalogue* catalogue;
};
std::vector<kind_catalogue> workload_catalogues();

// The row whose `requested` says the request names its workload itself (`alloclab replay`'s
// trace), or nullptr.
const frame_planner* requesting_planner(const run_request& request);

}  // namespace alloclab::lab
