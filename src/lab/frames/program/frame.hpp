// The program frame's row (frames/frame_module.hpp): `alloclab try` measures the user's own
// program, so `run` never plans it (no add_cells); `try` makes its run_plan itself
// (program_plan.hpp: a cell per program x variant) and runs it through the schedule with the
// row's executor (one run of the program per task). The row brings its command, its executor,
// its results part (what its numbers include, its warnings), its report.md section and heading,
// and its cells for `alloclab compare`.
#pragma once

#include <memory>
#include <string>

#include <vector>

#include "frames/frame_module.hpp"

namespace alloclab::lab {

frame_module program_frame();

// `alloclab try`, registered on the CLI.
std::unique_ptr<frame_commands> add_program_commands(CLI::App& app,
                                                     const std::string& command_line);
// report.md's "Your program under each malloc" section, when `results` hold a program run.
void program_section(std::string& md, const model::document& results);
// The title and run line of the report of a program run ("" when `results` hold none).
std::string program_report_heading(const model::document& results);
// A program run's combinations as the cells of one workload, "program `COMMAND` CPU", each timed
// by its runs' CPU time (user + sys, in ns), so compare's one rule applies; none without one.
std::vector<model::workload> program_compare_workloads(const model::document& results);

}  // namespace alloclab::lab
