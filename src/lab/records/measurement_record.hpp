// The one record every executor returns: one cell (workload x strategy x malloc, in one frame)
// measured in one fresh process. Executors only fill records; the results builder is the only
// code that turns them into results JSON. What the process measured is its frame's own typed
// struct (frames/<frame>/process_figures.hpp), held in `figures`: adding a frame adds nothing here.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "records/frame_figures.hpp"

namespace alloclab::lab {

struct measurement_record {
  std::string frame;  // plan's to_string(frame)
  std::string workload;
  std::string strategy;
  std::string malloc;    // malloc_choice::label
  std::size_t part = 0;  // which of the cell's processes
  std::string status;    // ok | overflowed | not_applicable | failed | refused | not_installed
  std::string reason;    // why there is no number; empty when status is ok
  nlohmann::json live_allocator;  // the worker's proof of its malloc (null when none)
  nlohmann::json worker;          // exit status, signal, timeout, wall time of the process
  frame_figures figures;          // the frame's figures; none when there is no number
};

// Worker -> parent transport and shard files (not results JSON): the figures under the frame's
// name. Reading takes the frame's reader of its figures (merge/frame_figures_reader.hpp's
// read_record finds it by the record's frame); throws nlohmann::json::exception on a document
// that is not a record.
nlohmann::json record_to_json(const measurement_record& record);
using figures_json_reader = frame_figures (*)(const nlohmann::json& figures);
measurement_record record_from_json(const nlohmann::json& j, figures_json_reader read_figures);

}  // namespace alloclab::lab
