// What the program frame (an `alloclab try` run) says of its results document as a whole, beside
// its program part: the config, timer and significance of its rounds, what its numbers include and
// its warnings. The one results builder (results/results_builder.hpp's build_results) calls them
// through the frame's row; `try` writes that document through the one run-directory writer
// (render/run_directory.hpp), so `alloclab report`, `validate` and `compare` read it like any
// run's.
//
// Example:
//   auto results = lab::build_results(plan, run_records_of(ran, outcome, seconds), context);
//   // the row's add_results called describe_program_run(results): config, timer, significance
#pragma once

#include <string>
#include <vector>

#include "frames/program/program_model.hpp"
#include "model/document.hpp"
#include "plan/plan.hpp"

namespace alloclab::program {

// What a document's program part says of the run as a whole, set in the document: its config
// (one run of the program a sample, a round a repetition; no workloads or strategies), the
// wait4 timer, the significance over per-run figures of the rounds completed, and no `budget`
// (the program part's `stopping` says how the rounds stopped). The frame's
// results part sets them over the shared builder's (as the heap and replay frames set their
// config); nothing without a program part.
void describe_program_run(lab::model::document& results);

// The frame's part of the results stage (its row's what_numbers_include and warnings,
// results/frame_results_writer.hpp): what its numbers
// include, and the warnings its program part gives (none for a document without one).
std::string program_numbers_include(const lab::run_plan& plan);
std::vector<std::string> program_warnings(const lab::model::document& results);

}  // namespace alloclab::program
