#include "schedule/round_run.hpp"

#include <chrono>

#include "process/interrupt.hpp"

namespace alloclab::lab {
namespace {

// The plan's tasks from `begin` up to the first of another round.
std::size_t round_end(const std::vector<task>& schedule, std::size_t begin) {
  std::size_t end = begin;
  while (end < schedule.size() && schedule[end].part == schedule[begin].part) ++end;
  return end;
}

}  // namespace

round_records run_rounds(const run_plan& plan, const executor_factory& make_executor,
                         const task_finished& finished, const round_check& another_round) {
  const auto started = std::chrono::steady_clock::now();
  round_records out;
  try {
    executor_set executors(plan, make_executor, [](const schedule_progress&) {});
    for (std::size_t begin = 0; begin < plan.schedule.size();) {
      const std::size_t end = round_end(plan.schedule, begin);
      for (std::size_t i = begin; i < end; ++i) {
        measurement_record r = executors.run(plan, plan.schedule[i]);
        if (finished) finished(plan.schedule[i], r);
        out.records.push_back(std::move(r));
        out.ran.push_back(plan.schedule[i]);
      }
      ++out.completed;
      out.duration_seconds = seconds_since(started);
      if (another_round && !another_round(out)) break;
      begin = end;
    }
  } catch (const run_interrupted& e) {
    out.interrupted_by = e.signal();
  }
  out.duration_seconds = seconds_since(started);
  return out;
}

}  // namespace alloclab::lab
