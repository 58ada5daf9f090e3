// The executor stage: one executor per frame turns a task (one cell, one fresh process) into a
// measurement_record. Executors never throw for what a worker does (crash, hang, refusal,
// garbage output): that becomes a record with a status and a reason, and the run goes on.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "plan/plan.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {

// Progress text for the one line the scheduler shows (e.g. "calibrating vector_push").
using progress_note = std::function<void(const std::string&)>;

class executor {
 public:
  virtual ~executor() = default;
  // Once per run, before this frame's first task (e.g. per-workload calibration).
  virtual void prepare(const run_plan& plan, const progress_note& note) = 0;
  virtual measurement_record execute(const run_plan& plan, const task& t) = 0;
  // Facts about the run this frame contributes to results (e.g. calibrations), as records'
  // companions: see results_builder. Empty object when none.
  virtual nlohmann::json run_facts() const = 0;
};

// argv[1] of the worker processes, dispatched in main() before any argument parsing.
inline constexpr const char* batch_worker_command = "__cell";
inline constexpr const char* heap_worker_command = "__heap-worker";
inline constexpr const char* memory_worker_command = "__memory-worker";
inline constexpr const char* replay_worker_command = "__replay-worker";

}  // namespace alloclab::lab
