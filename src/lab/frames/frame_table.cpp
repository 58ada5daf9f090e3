#include "frames/frame_table.hpp"

#include <algorithm>

#include "schedule/executor.hpp"

namespace alloclab::lab {

// Each frame's row, from its folder's frame.cpp.
frame_module batch_frame();
frame_module heap_frame();
frame_module memory_frame();
frame_module serve_frame();
frame_module replay_frame();
frame_module program_frame();

const std::vector<frame_module>& frame_table() {
  static const std::vector<frame_module> table = {batch_frame(), heap_frame(),   memory_frame(),
                                                  serve_frame(), replay_frame(), program_frame()};
  return table;
}

std::vector<const frame_module*> report_order() {
  std::vector<const frame_module*> rows;
  for (const frame f :
       {frame::heap, frame::replay, frame::batch, frame::memory, frame::serve, frame::program})
    rows.push_back(&module_of(f));
  return rows;
}

const frame_module& module_of(frame f) {
  for (const auto& m : frame_table())
    if (m.id == f) return m;
  return frame_table().front();
}

std::unique_ptr<executor> make_frame_executor(frame f) {
  return module_of(f).make_executor();
}

double expected_task_seconds(const run_plan& plan, const task& t) {
  return module_of(plan.cells.at(t.cell).frame).expected_seconds(plan, t);
}

const frame_module* find_module(const std::string& name) {
  for (const auto& m : frame_table())
    if (name == m.name) return &m;
  return nullptr;
}

measurement_record read_record(const nlohmann::json& j) {
  const frame_module* row = find_module(j.at("frame").get<std::string>());
  if (row == nullptr || row->read_figures == nullptr)
    throw nlohmann::json::other_error::create(
        501, "a record of frame " + j.at("frame").dump() + ", which measures nothing", &j);
  return record_from_json(j, row->read_figures);
}

std::vector<kind_catalogue> workload_catalogues() {
  std::vector<kind_catalogue> out;
  for (const auto& m : frame_table()) {
    if (m.workloads == nullptr) continue;
    const bool listed = std::any_of(out.begin(), out.end(),
                                    [&](const kind_catalogue& c) { return c.kind == m.measures; });
    if (!listed) out.push_back({m.measures, m.workloads});
  }
  return out;
}

}  // namespace alloclab::lab
