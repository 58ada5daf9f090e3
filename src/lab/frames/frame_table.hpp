// The frame table: one row per frame, and the only road from the stages every frame shares (plan,
// schedule, results, render, the CLI's worker dispatch) into a frame's own code. A frame is one
// folder, frames/<name>/, whose frame.cpp fills its row by member name (a member it leaves unset
// is null); adding a frame adds that folder, a row in frame_table.cpp and a value of `frame`
// (plan/plan.hpp). A frame measured by a command of its
// own rather than by `run` (the program frame, `alloclab try`) leaves the plan's members null.
//
// | member            | called by                  | does                                         |
// |-------------------|----------------------------|----------------------------------------------|
// | add_cells         | plan (make_plan)           | adds the frame's cells to the plan           |
// | repetitions       | plan, results              | repetitions of each of its cells             |
// | worker_command    | main (before parsing)      | argv[1] of its worker processes, or nullptr  |
// | worker_main       | main                       | the worker: one JSON document on stdout      |
// | make_executor     | run, handed to schedule    | turns a task into a measurement_record       |
// |                   | (make_frame_executor)      |                                              |
// | add_results       | results (build_results)    | adds the frame's figures to results.json     |
// | what_numbers_include | results (build_results) | what the frame's numbers include          |
// | render_summary    | render (render_report)     | its sections at the head of report.md (after |
// |                   |                            | the title), or nullptr                       |
// | render_section    | render (render_report)     | the frame's report.md section, from the      |
// |                   |                            | results model                                |
// | render_details    | render (render_report)     | its closing tables (after the failures), or  |
// |                   |                            | nullptr                                      |
// | console_lines     | render (render_headline)   | its lines in the console summary a run ends  |
// |                   |                            | with, from the results model, or nullptr     |
// | method_lines      | render (Method section)    | how its cells ran, in report.md's Method, or |
// |                   |                            | nullptr                                      |
// | add_commands      | main (run_cli)             | registers its own subcommands, or nullptr    |
// | report_heading    | render (render_report)     | title and run line of a report of its own    |
// |                   |                            | run (its part, no workloads; "" without its  |
// |                   |                            | part), or nullptr                            |
// | compare_workloads | compare (compare_results)  | its figures as cells of workloads, so the    |
// |                   |                            | one comparison rule applies, or nullptr      |
// | expected_seconds  | run, handed to plan's      | a task's expected wall time, before anything |
// |                   | --shard (expected_task_    | is measured (balances shards), or nullptr    |
// |                   | seconds)                   |                                              |
// | workloads         | plan, claims, `list`       | the catalogue of the kind it measures, which |
// |                   |                            | --workloads names, or nullptr                |
// | resolve_sizes     | plan (make_plan)           | sets its own sizes and options in the plan   |
// |                   |                            | from the request (its defaults live in its   |
// |                   |                            | folder; the replay frame's resources), or    |
// |                   |                            | nullptr                                      |
// | read_figures      | merge (read_record)        | its process figures from their JSON (records |
// |                   |                            | in shard files), or nullptr                  |
// | budgeted          | plan (resolve_budget)      | whether a budget's stop rule can size its    |
// |                   |                            | cells (its figures give stop readings)       |
// | simulation        | simulate (the queue)       | its worker's arguments for a cell's          |
// |                   |                            | simulated cost (simulate/frame_hook.hpp), or |
// |                   |                            | nullptr: its cells are not simulated         |
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/cell.hpp"
#include "model/frame_part.hpp"
#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "simulate/frame_hook.hpp"
#include "workloads/catalogue.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {
namespace model {
struct document;
}

class executor;
struct frame_results_input;

// A frame's own subcommands (`alloclab serve` and `load`, `alloclab try`), once registered.
class frame_commands {
 public:
  virtual ~frame_commands() = default;
  virtual std::vector<std::string> names() const = 0;  // as typed after `alloclab`
  virtual bool parsed() const = 0;                     // one of them was on the command line
  virtual int execute() const = 0;                     // runs it; throws usage_error
};

struct frame_module {
  frame id = frame::batch;
  const char* name = "";  // as --frames and results.json spell it
  workload_kind measures = workload_kind::lab;
  // Adds the frame's cells; `lab_mallocs` is plan.mallocs plus the placement twin, if any.
  void (*add_cells)(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs) = nullptr;
  std::size_t measurement_sizes::*repetitions = nullptr;
  bool by_default = false;  // measured when --frames is not given (else only when named)
  const char* worker_command = nullptr;  // nullptr: the frame starts no worker of its own
  int (*worker_main)(const char* spec_json) = nullptr;
  std::unique_ptr<executor> (*make_executor)() = nullptr;
  void (*add_results)(const frame_results_input& in, nlohmann::json& results) = nullptr;
  std::string (*what_numbers_include)(const run_plan& plan) = nullptr;  // what its numbers include
  std::unique_ptr<frame_commands> (*add_commands)(CLI::App& app,
                                                  const std::string& command_line) = nullptr;
  std::string (*report_heading)(const model::document& results) = nullptr;
  std::vector<model::workload> (*compare_workloads)(const model::document& results) = nullptr;
  double (*expected_seconds)(const run_plan& plan, const task& t) = nullptr;
  model::frame_results_parts results_parts;  // its own keys in results.json (model/frame_part.hpp)
  void (*render_summary)(std::string& md, const model::document& results) = nullptr;
  void (*render_section)(std::string& md, const model::document& results) = nullptr;
  void (*render_details)(std::string& md, const model::document& results) = nullptr;
  void (*console_lines)(std::string& out, const model::document& results) = nullptr;
  void (*method_lines)(std::string& md, const model::document& results) = nullptr;
  const workload_catalogue* workloads = nullptr;
  void (*resolve_sizes)(run_plan& plan, const run_request& request,
                        const host_view& host) = nullptr;
  figures_json_reader read_figures = nullptr;
  bool budgeted = false;
  simulate::simulation_worker (*simulation)(const run_plan& plan, const cell_spec& cell) = nullptr;
};

// Every frame, in the order plans and results list them.
const std::vector<frame_module>& frame_table();
// Every frame, in the order report.md shows their sections: the heap study's and a replay's
// findings first, then the seeds' published tables, memory over time and serving, then your
// program (whose runs `alloclab try` reports on their own: report_heading).
std::vector<const frame_module*> report_order();
const frame_module& module_of(frame f);
// The executor of frame `f`, from its row: what the run's schedule measures each task with
// (schedule/scheduler.hpp's executor_factory).
std::unique_ptr<executor> make_frame_executor(frame f);
// A task's expected wall time from its frame's row (`expected_seconds`), before anything is
// measured: what the run deals shards by (plan/shard.hpp's task_cost).
double expected_task_seconds(const run_plan& plan, const task& t);
// The row whose name (as results.json spells it) is `name`, or nullptr.
const frame_module* find_module(const std::string& name);
// A record from its JSON (a shard file's), its figures read by its frame's row; throws
// nlohmann::json::exception for a frame that measures nothing or a document that is no record.
measurement_record read_record(const nlohmann::json& j);

// Each workload kind --workloads names, with its catalogue (from the first row measuring it), in
// table order.
struct kind_catalogue {
  workload_kind kind;
  const workload_catalogue* catalogue;
};
std::vector<kind_catalogue> workload_catalogues();

}  // namespace alloclab::lab
