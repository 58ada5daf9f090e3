// The results document of an `alloclab try` run (the program frame alone) and its three files:
// results.json, report.md and report.html, the last two rendered from the first only.
//
// Example:
//   const auto results = alloclab::program::program_document(program, "alloclab try -- true",
//                                                             "2026-01-01T00:00:00Z", 1.5);
//   alloclab::program::write_program_outputs(results, "results/try-1");
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace alloclab::program {

nlohmann::json program_document(nlohmann::json program, const std::string& command_line,
                                const std::string& created_utc, double duration_seconds);

std::string render_program_report(const nlohmann::json& results);

void write_program_outputs(const nlohmann::json& results, const std::filesystem::path& directory);

}  // namespace alloclab::program
