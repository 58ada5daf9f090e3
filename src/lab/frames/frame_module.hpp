// A frame's row: what one folder frames/<name>/ gives the shared stages. Each stage declares, in
// its own folder, the part it needs of a frame; the row implements every one of them, and its
// frame.cpp fills them by member name (a member it leaves unset is null). Only main/ wires rows to
// stages (main/frame_registry.cpp, one line per frame): no stage includes frames/.
//
// | part                  | stage's interface (members)                                        |
// |-----------------------|--------------------------------------------------------------------|
// | frame_planner         | plan/frame_planner.hpp: id, name, measures, add_cells, repetitions,|
// |                       | samples_per_repetition, by_default, expected_seconds, workloads,   |
// |                       | resolve_sizes, read_sizes, add_run_options, run_options_after,     |
// |                       | requested, own_command_hint, selection,                            |
// |                       | one_repetition_per_process, budgeted, lockstep                     |
// | frame_results_writer  | results/frame_results_writer.hpp: add_results, warnings,           |
// |                       | what_numbers_include, repetition_noun                              |
// | frame_report          | render/frame_report.hpp: render_summary, render_section,          |
// |                       | render_details, console_lines, method_lines, report_heading,       |
// |                       | report_position                                                    |
// | frame_compare_hook    | compare/frame_compare_hook.hpp: compare_workloads                  |
// | frame_figures_reader  | merge/frame_figures_reader.hpp: read_figures, own_cells,           |
// |                       | placement_verdicts                                                 |
// | frame_export_hook     | export/frame_export_hook.hpp: heap_of                              |
// | frame_simulation      | simulate/frame_simulation.hpp: simulation                          |
// | results_parts         | model/frame_part.hpp (frame_codecs): its keys in results.json      |
// | make_executor         | schedule/executor.hpp: handed to the scheduler by the run (main)   |
// | worker_command,       | main: argv[1] of its worker processes (or nullptr) and the worker, |
// | worker_main           | one JSON document on stdout                                        |
// | add_commands          | main (run_cli): registers its own subcommands, or nullptr          |
//
// A frame measured by a command of its own rather than by `run` (the program frame, `alloclab
// try`) leaves the plan's members null. A frame's own options and sizes are its structs
// (frames/<name>/run_options.hpp) in its slot of the request and the plan (plan/frame_slots.hpp):
// its row registers its `run` options (add_run_options) and resolves them (resolve_sizes).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compare/frame_compare_hook.hpp"
#include "export/frame_export_hook.hpp"
#include "merge/frame_figures_reader.hpp"
#include "model/frame_part.hpp"
#include "plan/frame_planner.hpp"
#include "render/frame_report.hpp"
#include "results/frame_results_writer.hpp"
#include "simulate/frame_simulation.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

class executor;

// A frame's own subcommands (`alloclab serve` and `load`, `alloclab try`), once registered.
class frame_commands {
 public:
  virtual ~frame_commands() = default;
  virtual std::vector<std::string> names() const = 0;  // as typed after `alloclab`
  virtual bool parsed() const = 0;                     // one of them was on the command line
  virtual int execute() const = 0;                     // runs it; throws usage_error
};

struct frame_module : frame_planner,
                      frame_results_writer,
                      frame_report,
                      frame_compare_hook,
                      frame_figures_reader,
                      frame_export_hook,
                      frame_simulation {
  model::frame_results_parts results_parts;  // its own keys in results.json
  std::unique_ptr<executor> (*make_executor)() = nullptr;
  const char* worker_command = nullptr;  // nullptr: the frame starts no worker of its own
  int (*worker_main)(const char* spec_json) = nullptr;
  std::unique_ptr<frame_commands> (*add_commands)(CLI::App& app,
                                                  const std::string& command_line) = nullptr;
};

}  // namespace alloclab::lab
