#include "plan/frame_planner.hpp"

#include <algorithm>

namespace alloclab::lab {

const frame_planner& planner_of(frame f) {
  for (const auto& p : frame_planners())
    if (p.id == f) return p;
  return frame_planners().front();
}

const frame_planner* find_planner(const std::string& name) {
  for (const auto& p : frame_planners())
    if (name == p.name) return &p;
  return nullptr;
}

double expected_task_seconds(const run_plan& plan, const task& t) {
  return planner_of(plan.cells.at(t.cell).frame).expected_seconds(plan, t);
}

bool uses_every_cpu(const run_plan& plan, const std::vector<task>& tasks) {
  return std::any_of(tasks.begin(), tasks.end(), [&](const task& t) {
    const cell_spec& c = plan.cells.at(t.cell);
    const auto needs = planner_of(c.frame).uses_every_cpu;
    return needs != nullptr && needs(c);
  });
}

std::vector<kind_catalogue> workload_catalogues() {
  std::vector<kind_catalogue> out;
  for (const auto& p : frame_planners()) {
    if (p.workloads == nullptr) continue;
    const bool listed = std::any_of(out.begin(), out.end(),
                                    [&](const kind_catalogue& c) { return c.kind == p.measures; });
    if (!listed) out.push_back({p.measures, p.workloads});
  }
  return out;
}

const frame_planner* requesting_planner(const run_request& request) {
  for (const auto& p : frame_planners())
    if (p.requested != nullptr && p.requested(request)) return &p;
  return nullptr;
}

}  // namespace alloclab::lab
