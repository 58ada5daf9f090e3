// What the render stage needs of a frame: its report part. Each frame's row fills one
// (frames/<name>/frame.cpp); main/frame_registry.cpp defines frame_reports() from the rows, so
// report.md and the console summary ask each frame for its sections without reaching into
// frames/. Every member reads the results model only, and is null when the frame has none.
//
// | member          | called by                 | does                                         |
// |-----------------|---------------------------|----------------------------------------------|
// | render_summary  | render_report             | its sections at the head of report.md        |
// | render_section  | render_report             | its report.md section                        |
// | render_details  | render_report             | its closing tables (after the failures)      |
// | console_lines   | render_headline           | its lines in the console summary             |
// | method_lines    | the Method section        | how its cells ran                            |
// | report_heading  | render_report             | title and run line of a report of its own    |
// |                 |                           | run (its part, no workloads; "" without it)  |
// | report_position | frames_in_report_order    | where its sections stand, lowest first       |
#pragma once

#include <string>
#include <vector>

#include "plan/frame_planner.hpp"

namespace alloclab::lab {

namespace model {
struct document;
}

struct frame_report {
  void (*render_summary)(std::string& md, const model::document& results) = nullptr;
  void (*render_section)(std::string& md, const model::document& results) = nullptr;
  void (*render_details)(std::string& md, const model::document& results) = nullptr;
  void (*console_lines)(std::string& out, const model::document& results) = nullptr;
  void (*method_lines)(std::string& md, const model::document& results) = nullptr;
  std::string (*report_heading)(const model::document& results) = nullptr;
  int report_position = 0;
};

using report_row = frame_row<frame_report>;

// Every frame's report part, in table order (main/frame_registry.cpp).
const std::vector<report_row>& frame_reports();
// The same, in the order report.md shows their sections (by report_position; table order among
// equals).
std::vector<const report_row*> frames_in_report_order();

}  // namespace alloclab::lab
