// What the results stage needs of a frame: its typed part of the results model. Each frame's row
// fills one (frames/<name>/frame.cpp); main/frame_registry.cpp defines frame_results_writers()
// from the rows, so the builder adds each frame's part without reaching into frames/.
//
// | member               | called by     | does                                                |
// |----------------------|---------------|-----------------------------------------------------|
// | add_results          | build_results | adds the frame's workloads, config and top-level    |
// |                      |               | parts to the document (model::document)             |
// | warnings             | build_results | the frame's own warnings, read from its parts       |
// | what_numbers_include | build_results | what the frame's numbers include                    |
// | repetition_noun      | build_results | what a repetition is called in a run of the frame   |
// |                      |               | alone (try's "round"); null: "repetition"           |
#pragma once

#include <string>
#include <vector>

#include "model/document.hpp"
#include "plan/frame_planner.hpp"

namespace alloclab::lab {

struct frame_results_input;  // results/cell_parts.hpp

struct frame_results_writer {
  void (*add_results)(const frame_results_input& in, model::document& results) = nullptr;
  // Appended after the warnings every frame's workloads give (results_builder's collect_warnings).
  std::vector<std::string> (*warnings)(const model::document& results) = nullptr;
  std::string (*what_numbers_include)(const run_plan& plan) = nullptr;
  const char* repetition_noun = nullptr;
};

// Every frame's writer, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_results_writer>>& frame_results_writers();

}  // namespace alloclab::lab
