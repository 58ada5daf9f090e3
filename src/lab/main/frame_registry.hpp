// The frame registry: every frame's row (frames/frame_module.hpp), and the one place that wires
// rows to the stages. Each stage looks its part of the rows up through its own interface
// (plan/frame_planner.hpp, results/frame_results_writer.hpp, render/frame_report.hpp,
// compare/frame_compare_hook.hpp, merge/frame_figures_reader.hpp, export/frame_export_hook.hpp,
// simulate/frame_simulation.hpp, model/frame_part.hpp), whose lookup main/frame_registry.cpp defines from these rows.
#pragma once

#include <memory>
#include <vector>

#include "frames/frame_module.hpp"

namespace alloclab::lab {

// Every frame, in the order plans and results list them.
const std::vector<frame_module>& frame_table();
// The row of frame `f` (the first row for a frame no row has).
const frame_module& module_of(frame f);
// The executor of frame `f`, from its row: what the run's schedule measures each task with
// (schedule/scheduler.hpp's executor_factory).
std::unique_ptr<executor> make_frame_executor(frame f);

}  // namespace alloclab::lab
