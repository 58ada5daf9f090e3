// What the merge stage needs of a frame: the reader of its process figures, with which a shard
// file's records are read back; the cells it keeps in a part of its own rather than in the
// document's workloads (the serve section), which merge counts and `run --shard-costs` times; and
// the placement verdicts of its workloads, which the fleet report sets side by side. Each frame's
// row fills one (frames/<name>/frame.cpp; null: the frame measures nothing `run` shards, keeps no
// cells of its own, judges no placement); main/frame_registry.cpp defines frame_figures_readers()
// from the rows.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/document.hpp"
#include "plan/frame_planner.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {

// A workload's strategy whose ratio to the baseline the placement check judged.
struct placement_verdict {
  std::string strategy;
  bool placement_driven = false;
};

struct frame_figures_reader {
  figures_json_reader read_figures = nullptr;
  // Each cell of the frame's own part of `results`, with its workload's name, in document order.
  std::vector<std::pair<std::string, model::cell_head>> (*own_cells)(
      const model::document& results) = nullptr;
  // The placement check's verdicts on a workload of the frame, in strategy order.
  std::vector<placement_verdict> (*placement_verdicts)(const model::workload& workload) = nullptr;
};

// Every frame's reader, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_figures_reader>>& frame_figures_readers();

// A record from its JSON (a shard file's), its figures read by its frame's reader; throws
// nlohmann::json::exception for a frame that measures nothing or a document that is no record.
measurement_record read_record(const nlohmann::json& j);

}  // namespace alloclab::lab
