#include "schedule/scheduler.hpp"

#include "frames/frame_table.hpp"

#include <chrono>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "schedule/executor.hpp"
#include "process/interrupt.hpp"

namespace alloclab::lab {
namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point start) {
  return std::chrono::duration<double>(steady::now() - start).count();
}

std::string describe(const run_plan& plan, const task& t) {
  const cell_spec& c = plan.cells.at(t.cell);
  const std::string frame = c.frame == frame::batch ? "" : std::string(to_string(c.frame)) + " ";
  return fmt::format("{}{} / {} @ {} (process {})", frame, c.workload, c.strategy, c.malloc.label,
                     t.part + 1);
}

}  // namespace

run_records run_schedule(const run_plan& plan, const schedule_progress_fn& progress) {
  const auto started = steady::now();
  run_records out;
  std::map<frame, std::unique_ptr<executor>> executors;
  for (const cell_spec& c : plan.cells)
    if (executors.count(c.frame) == 0) executors[c.frame] = module_of(c.frame).make_executor();

  const std::size_t total = plan.schedule.size();
  for (auto& [f, e] : executors) {
    e->prepare(plan, [&](const std::string& what) { progress({0, total, -1, what}); });
    throw_if_interrupted();
  }
  const auto measuring = steady::now();
  for (std::size_t i = 0; i < total; ++i) {
    const task& t = plan.schedule[i];
    const double eta =
        i == 0 ? -1
               : seconds_since(measuring) / static_cast<double>(i) * static_cast<double>(total - i);
    progress({i, total, eta, describe(plan, t)});
    out.records.push_back(executors.at(plan.cells.at(t.cell).frame)->execute(plan, t));
    throw_if_interrupted();
  }
  progress({total, total, 0, "done"});
  for (auto& [f, e] : executors) out.frame_facts[to_string(f)] = e->run_facts();
  out.duration_seconds = seconds_since(started);
  return out;
}

}  // namespace alloclab::lab
