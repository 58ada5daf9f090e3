#include "main/frame_registry.hpp"

#include "schedule/executor.hpp"

namespace alloclab::lab {

// Every frame, one line each, in the order plans and results list them: frames/<name>/frame.cpp
// defines <name>_frame(), its row. Adding a frame is its folder and its line here.
// clang-format off
#define ALLOCLAB_FRAMES(row) \
  row(batch)                 \
  row(heap)                  \
  row(memory)                \
  row(serve)                 \
  row(replay)                \
  row(program)
// clang-format on

#define ALLOCLAB_DECLARE_ROW(name) frame_module name##_frame();
ALLOCLAB_FRAMES(ALLOCLAB_DECLARE_ROW)
#undef ALLOCLAB_DECLARE_ROW

const std::vector<frame_module>& frame_table() {
#define ALLOCLAB_ROW(name) name##_frame(),
  static const std::vector<frame_module> table = {ALLOCLAB_FRAMES(ALLOCLAB_ROW)};
#undef ALLOCLAB_ROW
  return table;
}

const frame_module& module_of(frame f) {
  for (const auto& m : frame_table())
    if (m.id == f) return m;
  return frame_table().front();
}

std::unique_ptr<executor> make_frame_executor(frame f) {
  return module_of(f).make_executor();
}

namespace {

// Stage `Part` of every row, with its frame, in table order.
template <class Part>
std::vector<frame_row<Part>> rows_of() {
  std::vector<frame_row<Part>> rows;
  for (const frame_module& m : frame_table())
    rows.push_back({m.id, m.name, static_cast<const Part&>(m)});
  return rows;
}

}  // namespace

// Each stage's lookup of its part of the rows (declared in the stage's own folder).

const std::vector<frame_planner>& frame_planners() {
  static const std::vector<frame_planner> planners(frame_table().begin(), frame_table().end());
  return planners;
}

const std::vector<model::frame_codecs>& model::frame_codec_table() {
  static const std::vector<frame_codecs> codecs = [] {
    std::vector<frame_codecs> out;
    for (const frame_module& m : frame_table()) out.push_back({m.name, m.results_parts});
    return out;
  }();
  return codecs;
}

const std::vector<frame_row<frame_results_writer>>& frame_results_writers() {
  static const auto rows = rows_of<frame_results_writer>();
  return rows;
}

const std::vector<report_row>& frame_reports() {
  static const auto rows = rows_of<frame_report>();
  return rows;
}

const std::vector<frame_row<frame_compare_hook>>& frame_compare_hooks() {
  static const auto rows = rows_of<frame_compare_hook>();
  return rows;
}

const std::vector<frame_row<frame_figures_reader>>& frame_figures_readers() {
  static const auto rows = rows_of<frame_figures_reader>();
  return rows;
}

const std::vector<frame_row<frame_export_hook>>& frame_export_hooks() {
  static const auto rows = rows_of<frame_export_hook>();
  return rows;
}

const std::vector<frame_row<frame_simulation>>& frame_simulations() {
  static const auto rows = rows_of<frame_simulation>();
  return rows;
}

}  // namespace alloclab::lab
