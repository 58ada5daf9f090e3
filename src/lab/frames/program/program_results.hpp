// The program frame's part of results.json (built once, from the plan, the runs and the typed
// figures, as the results model's program_results_section, which the model's codec writes) and
// its report sections, which read only the results model's program part
// (program_model.hpp): report.md's section, the console summary. report.html draws the
// CPU-versus-peak-RSS scatter from the same JSON
// (render/html_report.js, `programTradeOff`).
//
// Example:
//   const lab::program_results_section program = alloclab::program::program_results(
//       plan, rows, figures, true, stopping, stopper.outcome());
//   std::cout << alloclab::program::render_program_console(
//       lab::model::from_json(results).parts.get<lab::program_document_figures>()->program);
#pragma once

#include <string>
#include <vector>

#include "frames/program/figures.hpp"
#include "frames/program/program_model.hpp"
#include "frames/program/program_plan.hpp"
#include "frames/program/stopping.hpp"

namespace alloclab::program {

/// The `program` key of results.json: see docs/results-schema.md, "program".
lab::program_results_section program_results(const try_plan& plan, const std::vector<run_row>& rows,
                                             const program_figures& figures, bool output_checked,
                                             const stopping_plan& stopping,
                                             const stopping_outcome& outcome);

/// report.md's "Your program under each malloc" section.
std::string render_program_markdown(const lab::program_results_section& program);

/// The few lines `alloclab try` prints when it is done (plain text, "x" for ratios).
std::string render_program_console(const lab::program_results_section& program);

}  // namespace alloclab::program
