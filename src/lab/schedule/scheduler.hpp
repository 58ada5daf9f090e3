// Runs a plan's schedule: each frame's executor is prepared once, then the tasks run one at a
// time (measuring processes never overlap), in the plan's interleaved order. A budgeted plan's
// rounds are run by schedule/budget_run.hpp on the same executors.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "process/pausable_workers.hpp"
#include "records/measurement_record.hpp"
#include "schedule/budget_account.hpp"

namespace alloclab::lab {

// Seconds on the steady clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class executor;

struct schedule_progress {
  std::size_t done = 0;  // tasks finished
  std::size_t total = 0;
  double eta_seconds = -1;  // < 0: not known yet
  std::string what;         // the task or preparation step now running
};
using schedule_progress_fn = std::function<void(const schedule_progress&)>;

struct run_records {
  std::vector<measurement_record> records;                // one per task, in schedule order
  nlohmann::json frame_facts = nlohmann::json::object();  // frame name -> executor's run_facts
  double duration_seconds = 0;
  // The stop rule's account of the run (results.json's `budget`, schedule/budget_run.hpp).
  std::optional<budget_account> budget;
};

// Every frame's executor the plan's cells need, each prepared once (calibrations, pinning).
// A frame's executor: the run passes its frame registry's (make_frame_executor,
// main/frame_registry.hpp), tests their own.
using executor_factory = std::function<std::unique_ptr<executor>(frame f)>;

class executor_set {
 public:
  executor_set(const run_plan& plan, const executor_factory& make_executor,
               const schedule_progress_fn& progress);
  ~executor_set();
  measurement_record run(const run_plan& plan, const task& t);
  nlohmann::json facts() const;  // frame name -> executor's run_facts

 private:
  std::map<frame, std::unique_ptr<executor>> executors_;
};

// "vector_push / std @ glibc (process 2)", as progress lines name a task.
std::string describe_task(const run_plan& plan, const task& t);

// Throws run_interrupted on SIGINT/SIGTERM (after killing the running worker). `beside`: work
// running beside the timing, paused while a task that needs every CPU measures.
run_records run_schedule(const run_plan& plan, const executor_factory& make_executor,
                         const schedule_progress_fn& progress,
                         process::pausable_workers* beside = nullptr);

}  // namespace alloclab::lab
