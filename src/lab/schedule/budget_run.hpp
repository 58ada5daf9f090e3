// Runs a budgeted plan (plan/budget.hpp): its first round, then, after each look of the stop rule
// (stats/sequential.hpp), a round of processes for the cells whose comparisons are still open,
// until every comparison is decided, the rule's last look, or the budget is spent. Its account,
// results.json's `budget`, says what the budget bought and what is still open.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "process/pausable_workers.hpp"
#include "schedule/scheduler.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

// Runs the plan; on return plan.schedule holds every task that ran, in the order its record is
// in. `started`: when the run began (the budget counts from there, probe included). `beside`:
// work running beside the timing, paused while a task that needs every CPU measures.
run_records run_budgeted(run_plan& plan, std::chrono::steady_clock::time_point started,
                         const executor_factory& make_executor,
                         const schedule_progress_fn& progress,
                         process::pausable_workers* beside = nullptr);

// The same account for a fixed plan: its comparisons judged once, at the end (one look).
budget_account fixed_plan_account(const run_plan& plan,
                                  const std::vector<measurement_record>& records,
                                  double spent_seconds);

}  // namespace alloclab::lab
