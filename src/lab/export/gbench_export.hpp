// Google Benchmark's JSON format from an alloclab results file, so that tools built for Google
// Benchmark (its tools/compare.py, dashboards that store its JSON) take alloclab's numbers
// unchanged. `alloclab export --format gbench results.json` calls it.
//
// | alloclab                                  | Google Benchmark JSON                         |
// |-------------------------------------------|-----------------------------------------------|
// | a timed cell: workload x strategy x malloc | one benchmark family, name `W/S/malloc:M`     |
// | one repetition (`repetition_means_ns[i]`)  | one `run_type: iteration` entry, its mean     |
// | the repetitions' mean/median/stddev/cv     | `run_type: aggregate` entries `NAME_mean`...  |
// | heap allocations and bytes per iteration   | `allocs_per_iter`, counter `alloclab_bytes_per_iter` |
// | a cell that did not run                    | `error_occurred: true`, `error_message`       |
// | environment facts                          | `context` (plus `alloclab_*` keys)            |
//
// alloclab times wall-clock only: `cpu_time` repeats `real_time`, and `context` says so.
// Frames whose cells have no per-repetition timing (memory, serve, program) are listed in
// `context.alloclab_frames_not_exported`.
//
// Example:
//   const auto results = alloclab::lab::read_results_model_as_written("results.json");
//   std::cout << alloclab::lab::to_gbench_json(results).dump(2);
#pragma once

#include <nlohmann/json.hpp>

#include "model/document.hpp"

namespace alloclab::lab {

// The Google Benchmark document for a results model (results/results_file.hpp reads a file into
// it): the repetitions' aggregates are the summary the model holds
// (`timing.repetition_means_summary`), not computed here; `alloclab_schema_version` is the
// document's (a file's as written, with read_results_model_as_written).
nlohmann::json to_gbench_json(const model::document& results);

}  // namespace alloclab::lab
