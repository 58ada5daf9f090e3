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

#include <nlohmann/json.hpp>

#include "frames/program/program_model.hpp"

namespace alloclab::program {

// `noise`: the run's noise gate (process::periodic_noise_watch::finish), null when not watched.
nlohmann::json program_document(lab::program_results_section program,
                                const std::string& command_line, const std::string& created_utc,
                                double duration_seconds, const nlohmann::json& noise = nullptr);

}  // namespace alloclab::program
