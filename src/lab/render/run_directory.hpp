// The one writer of a run directory: results.json, report.md and report.html, each written
// atomically, results.json first so that a failure leaves what was written whole (`alloclab
// report` re-renders the rest from it). `run` and `replay` write a fresh <UTC time> directory under
// their output root and then point the root's `latest` link at it; `merge` and `try` write into
// the directory they were given.
//
// Example:
//   const model::document results = build_results(plan, records, context);
//   const std::filesystem::path written =
//       write_run_directory(out, results, {}, run_directory_place::fresh_under_root);
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

#include "model/document.hpp"

namespace alloclab::lab {

// Where the files go: into the directory itself, or a fresh one under it with `latest` after.
enum class run_directory_place { given, fresh_under_root };

// A file written before results.json (a shard's shard.json); an empty name: none.
struct leading_file {
  std::string name, text;
};

// A run directory that could not be written whole: the reason in one line, saying whether
// results.json is whole.
class run_directory_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `results` (serialised here, once, by model::to_json) and the two reports rendered from
// it, which are what `alloclab report` renders from the file written. Returns the directory
// written. A fresh directory whose results.json was not written is removed again. Throws
// run_directory_error.
std::filesystem::path write_run_directory(const std::filesystem::path& where,
                                          const model::document& results,
                                          const leading_file& first = {},
                                          run_directory_place place = run_directory_place::given);

}  // namespace alloclab::lab
