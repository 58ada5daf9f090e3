#include "schedule/scheduler.hpp"

#include <chrono>

#include <fmt/format.h>

#include "plan/frame_planner.hpp"
#include "process/interrupt.hpp"
#include "schedule/budget_run.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {
namespace {

using steady = std::chrono::steady_clock;

}  // namespace

std::string describe_task(const run_plan& plan, const task& t) {
  const cell_spec& c = plan.cells.at(t.cell);
  const std::string frame = c.frame == frame::batch ? "" : std::string(to_string(c.frame)) + " ";
  return fmt::format("{}{} / {} @ {} (process {})", frame, c.workload, c.strategy, c.malloc.label,
                     t.part + 1);
}

executor_set::executor_set(const run_plan& plan, const executor_factory& make_executor,
                           const schedule_progress_fn& progress) {
  for (const cell_spec& c : plan.cells)
    if (executors_.count(c.frame) == 0) executors_[c.frame] = make_executor(c.frame);
  const std::size_t total = plan.schedule.size();
  for (auto& [f, e] : executors_) {
    e->prepare(plan, [&](const std::string& what) { progress({0, total, -1, what}); });
    throw_if_interrupted();
  }
}

executor_set::~executor_set() = default;

measurement_record executor_set::run(const run_plan& plan, const task& t) {
  measurement_record r = executors_.at(plan.cells.at(t.cell).frame)->execute(plan, t);
  throw_if_interrupted();
  return r;
}

nlohmann::json executor_set::facts() const {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [f, e] : executors_) facts[to_string(f)] = e->run_facts();
  return facts;
}

run_records run_schedule(const run_plan& plan, const executor_factory& make_executor,
                         const schedule_progress_fn& progress, process::pausable_workers* beside) {
  const auto started = steady::now();
  run_records out;
  executor_set executors(plan, make_executor, progress);
  const std::size_t total = plan.schedule.size();
  const auto measuring = steady::now();
  for (std::size_t i = 0; i < total; ++i) {
    const task& t = plan.schedule[i];
    const double eta =
        i == 0 ? -1
               : seconds_since(measuring) / static_cast<double>(i) * static_cast<double>(total - i);
    progress({i, total, eta, describe_task(plan, t)});
    const process::pause_guard quiet(uses_every_cpu(plan, {t}) ? beside : nullptr);
    out.records.push_back(executors.run(plan, t));
  }
  progress({total, total, 0, "done"});
  out.frame_facts = executors.facts();
  out.duration_seconds = seconds_since(started);
  out.budget = fixed_plan_account(plan, out.records, out.duration_seconds);
  return out;
}

}  // namespace alloclab::lab
