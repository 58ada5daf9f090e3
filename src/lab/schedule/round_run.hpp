// Runs a plan in rounds, a look after each: the plan's schedule (plan/plan.hpp's interleaved
// schedule; a task's part is its round) one task at a time, as run_schedule does, and after each
// whole round the caller's look (a stop rule over the records so far) says whether another round
// runs. A frame whose process is one repetition and whose comparisons pair its cells round by
// round (the program frame, `alloclab try`) runs this way. On SIGINT or SIGTERM the running
// process is ended by the handler and the rounds stop: the records finished before it are
// returned with the signal; the task it cut short is not among them.
//
// Example:
//   const round_records ran = run_rounds(plan, make_executor, on_each, [&](const auto& so_far) {
//     return so_far.completed < 3;  // a fixed number of rounds
//   });
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "schedule/scheduler.hpp"

namespace alloclab::lab {

struct round_records {
  std::vector<measurement_record> records;  // every task that finished, in the order it ran
  std::vector<task> ran;                    // the task of each record
  std::size_t completed = 0;                // whole rounds
  int interrupted_by = 0;                   // the signal that stopped the rounds; 0: none
  double duration_seconds = 0;
};

// After each whole round: false stops the run.
using round_check = std::function<bool(const round_records& so_far)>;
// Sees each task as it finishes, with its record.
using task_finished = std::function<void(const task&, const measurement_record&)>;

// Runs the plan's rounds until its schedule ends or `another_round` says stop.
round_records run_rounds(const run_plan& plan, const executor_factory& make_executor,
                         const task_finished& finished, const round_check& another_round);

}  // namespace alloclab::lab
