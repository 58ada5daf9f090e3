// The program frame's part of results.json (built once, from the plan, the runs and the typed
// figures, as the results model's program_results_section, which the model's codec writes; the
// row's results part, add_program_results, adds it in build_results from the run's records) and
// its report sections, which read only the results model's program part
// (program_model.hpp): report.md's section, the console summary. report.html draws the
// CPU-versus-peak-RSS scatter from the same JSON
// (render/html_report.js, `programTradeOff`).
//
// Example:
//   const lab::program_results_section program =
//       alloclab::program::program_section(program_part(plan), rows, stopper.outcome());
//   std::cout << alloclab::program::render_program_console(
//       lab::model::from_json(results).parts.get<lab::program_document_figures>()->program);
#pragma once

#include <string>
#include <vector>

#include "frames/program/figures.hpp"
#include "frames/program/program_model.hpp"
#include "frames/program/program_plan.hpp"
#include "frames/program/stopping.hpp"
#include "model/document.hpp"
#include "schedule/round_run.hpp"
#include "schedule/scheduler.hpp"

namespace alloclab::lab {
struct frame_results_input;  // results/cell_parts.hpp
}

namespace alloclab::program {

/// The `program` key of results.json: see docs/results-schema.md, "program".
lab::program_results_section program_results(const try_plan& plan, const std::vector<run_row>& rows,
                                             const program_figures& figures, bool output_checked,
                                             const stopping_plan& stopping,
                                             const stopping_outcome& outcome);

/// The section of the plan's runs `rows`, their rounds stopped as `outcome` says: its figures
/// (with the stop rule's intervals when the rounds stopped adaptively) and program_results.
lab::program_results_section program_section(const try_plan& plan, const std::vector<run_row>& rows,
                                             const stopping_outcome& outcome);

/// The rounds' records as the results stage takes a run's: every record of the plan's schedule
/// that ran (a prefix of it, in its order), the stop loop's outcome among the frame's facts, and
/// the run's duration as its caller's clock read it (`try`'s: from its first round to its results).
lab::run_records run_records_of(const lab::round_records& ran, const stopping_outcome& outcome,
                                double duration_seconds);

/// The frame's results part (its row's add_results): the program section of a plan that has
/// the program frame, from the records run_records_of made.
void add_program_results(const lab::frame_results_input& in, lab::model::document& results);

/// report.md's "Your program under each malloc" section.
std::string render_program_markdown(const lab::program_results_section& program);

/// The few lines `alloclab try` prints when it is done (plain text, "x" for ratios).
std::string render_program_console(const lab::program_results_section& program);

}  // namespace alloclab::program
