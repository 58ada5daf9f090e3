// What the merge stage needs of a frame: the reader of its process figures, with which a shard
// file's records are read back. Each frame's row fills one (frames/<name>/frame.cpp; null: the
// frame measures nothing `run` shards); main/frame_registry.cpp defines frame_figures_readers()
// from the rows.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "plan/frame_planner.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {

struct frame_figures_reader {
  figures_json_reader read_figures = nullptr;
};

// Every frame's reader, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_figures_reader>>& frame_figures_readers();

// A record from its JSON (a shard file's), its figures read by its frame's reader; throws
// nlohmann::json::exception for a frame that measures nothing or a document that is no record.
measurement_record read_record(const nlohmann::json& j);

}  // namespace alloclab::lab
