// A measuring worker, seen from the parent: every frame's worker prints one JSON document and
// exits 0, or exits worker_exit_refused when it could not prove its malloc live. The parent turns
// whatever happened into a cell_outcome (never an exception).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/values.hpp"
#include "mallocs/liveness.hpp"
#include "mallocs/purge.hpp"
#include "process/rss_series.hpp"
#include "process/worker.hpp"

namespace alloclab::process {

/// Exit status of a worker that refused to measure (allocator not proven live).
inline constexpr int worker_exit_refused = 3;
/// Exit status of a worker given an invalid spec.
inline constexpr int worker_exit_bad_spec = 2;

enum class cell_status {
  ok,             ///< measured; `document` holds the worker's JSON
  not_installed,  ///< a library of the allocator is missing; no worker started
  refused,        ///< the worker could not prove the allocator live; no numbers
  failed,         ///< crash, signal, timeout, bad output: see `detail` and `worker`
};
std::string_view to_string(cell_status s) noexcept;

struct cell_outcome {
  cell_status status = cell_status::failed;
  std::string detail;       ///< one line for the report
  worker_outcome worker;    ///< raw worker record (exit status, signal, stderr tail)
  nlohmann::json document;  ///< the worker's JSON when it printed a valid one
};

/// Parent side, any measuring worker: runs `request` and classifies the result. The worker must
/// print one JSON document with `measured` (bool) and `live_allocator.ok` (bool) and exit 0, or
/// exit worker_exit_refused when it could not prove its allocator. Never throws.
cell_outcome run_measuring_worker(const worker_request& request);

nlohmann::json to_json(const mallocs::live_allocator& l);
nlohmann::json to_json(const mallocs::purge_result& p);
nlohmann::json to_json(const rss_series& s);
/// The results model's form of a worker's readings (the JSON above is theirs, written).
lab::model::purge_call model_of(const mallocs::purge_result& p);
lab::model::rss_series model_of(const rss_series& s);

}  // namespace alloclab::process
