// Runs a plan's schedule: each frame's executor is prepared once, then the tasks run one at a
// time (measuring processes never overlap), in the plan's interleaved order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {

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
};

// Throws run_interrupted on SIGINT/SIGTERM (after killing the running worker).
run_records run_schedule(const run_plan& plan, const schedule_progress_fn& progress);

}  // namespace alloclab::lab
