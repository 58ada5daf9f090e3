// What the compare stage needs of a frame: a frame with figures outside the workloads (program,
// `alloclab try`) hands them over as model workloads of cells, so compare's one rule applies.
// Each frame's row fills one (frames/<name>/frame.cpp; null: nothing outside the workloads);
// main/frame_registry.cpp defines frame_compare_hooks() from the rows.
#pragma once

#include <vector>

#include "model/document.hpp"
#include "plan/frame_planner.hpp"

namespace alloclab::lab {

struct frame_compare_hook {
  std::vector<model::workload> (*compare_workloads)(const model::document& results) = nullptr;
};

// Every frame's hook, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_compare_hook>>& frame_compare_hooks();

}  // namespace alloclab::lab
