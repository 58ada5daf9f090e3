// The results document of an `alloclab try` run (the program frame alone: a lab results document
// with no workloads and a `program` part). Its directory is written by the one run-directory
// writer (render/run_directory.hpp), so `alloclab report`, `validate` and `compare` read it like
// any run's.
//
// Example:
//   const auto results = alloclab::program::program_document(section, "alloclab try -- true",
//                                                             "2026-01-01T00:00:00Z", 1.5);
//   alloclab::lab::write_run_directory("results/try-1", results);
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frames/program/program_model.hpp"
#include "model/document.hpp"
#include "plan/plan.hpp"

namespace alloclab::program {

// `noise`: the run's noise gate (process::periodic_noise_watch::finish), null when not watched.
nlohmann::json program_document(lab::program_results_section program,
                                const std::string& command_line, const std::string& created_utc,
                                double duration_seconds, const nlohmann::json& noise = nullptr);

// What a document's program part says of the run as a whole, set in the document: its config
// (one run of the program a sample, a round a repetition; no workloads or strategies), the
// wait4 timer, the significance over per-run figures of the rounds completed, and no `budget`
// (the program part's `stopping` says how the rounds stopped). The frame's
// results part sets them over the shared builder's (as the heap and replay frames set their
// config); nothing without a program part.
void describe_program_run(lab::model::document& results);

// The frame's part of the results stage (its row's what_numbers_include and warnings,
// results/frame_results_writer.hpp), which the document above takes too: what its numbers
// include, and the warnings its program part gives (none for a document without one).
std::string program_numbers_include(const lab::run_plan& plan);
std::vector<std::string> program_warnings(const lab::model::document& results);

}  // namespace alloclab::program
