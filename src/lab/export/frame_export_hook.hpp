// What the export stage needs of a frame: a cell's heap traffic per iteration, which Google
// Benchmark's JSON carries beside a time (`allocs_per_iter`). Each frame's row fills one
// (frames/<name>/frame.cpp; null: its cells count no heap traffic); main/frame_registry.cpp
// defines frame_export_hooks() from the rows.
#pragma once

#include <optional>
#include <vector>

#include "model/document.hpp"
#include "plan/frame_planner.hpp"

namespace alloclab::lab {

struct heap_per_iteration {
  double allocations = 0, bytes = 0;
};

struct frame_export_hook {
  // The cell's counted heap traffic per iteration, or none (not counted, not applicable).
  std::optional<heap_per_iteration> (*heap_of)(const model::cell& cell) = nullptr;
};

// Every frame's hook, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_export_hook>>& frame_export_hooks();

}  // namespace alloclab::lab
