// The simulation queue: the plan's batch and heap cells simulated one at a time on a thread of
// their own, beside the timed schedule. The thread pins itself (sched_setaffinity) to the last
// online CPU other than CPU 0, and its workers inherit that, so on a 2-CPU machine whose timing
// runs on CPU 0 the simulation runs on CPU 1. What is done when the run ends is reported; every other
// cell is listed as not simulated.
//
// A task that needs every CPU (plan/frame_planner.hpp's uses_every_cpu) pauses the queue's
// workers while it measures (workers()): the simulation then holds no CPU the task counts on.
//
// Order: each workload's baseline cell first (a ratio needs it), then the other cells taking the
// workloads in turn, so that whatever the run finishes spreads over every workload.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "model/simulated.hpp"
#include "plan/plan.hpp"
#include "plan/request.hpp"
#include "process/pausable_workers.hpp"
#include "simulate/cell_run.hpp"
#include "simulate/frame_hook.hpp"
#include "simulate/results.hpp"

namespace alloclab::lab::simulate {

// One planned cell and its simulated cost (status not_simulated until it ran).
struct simulated_cell {
  std::size_t cell = 0;  // index into run_plan::cells
  model::simulated_cost cost;
};

// The plan's simulated cells in queue order, each with its worker's arguments (or why not).
struct queued_cell {
  std::size_t cell = 0;
  simulation_worker worker;
};
std::vector<queued_cell> simulation_order(const run_plan& plan);

// When the queue stops: at `deadline` (the running simulation is killed), and, with
// `stop_with_timing`, when finish() is called (the timing is over).
struct queue_limits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  bool stop_with_timing = false;
};

// Whether `request` simulates, and until when: --no-simulate never; a budgeted run (by default,
// or with --simulate) until the budget or the timing ends, whichever is first; a fixed plan only
// with --simulate, every cell, however long it takes. nullopt: no simulation.
std::optional<queue_limits> simulation_limits(const run_request& request, const run_plan& plan,
                                              std::chrono::steady_clock::time_point started);

class simulation_queue {
 public:
  using clock = std::chrono::steady_clock;
  simulation_queue(const run_plan& plan, queue_limits limits);  // starts at once
  ~simulation_queue();                                          // stops like finish()
  simulation_queue(const simulation_queue&) = delete;
  simulation_queue& operator=(const simulation_queue&) = delete;

  // Stops (stop_with_timing) or waits for the queue to drain (or the deadline), then returns the
  // run's simulation for results_context::simulation.
  run_simulation finish();

  // The queue's workers, which a task needing every CPU pauses (schedule's run_budgeted).
  process::pausable_workers& workers() { return workers_; }

 private:
  void run();
  void join();

  const run_plan& plan_;
  const queue_limits limits_;
  std::vector<queued_cell> order_;
  std::vector<simulated_cell> done_;
  std::atomic<bool> stopping_{false};
  process::pausable_workers workers_;
  std::optional<int> cpu_;
  found_tools tools_;
  clock::time_point started_;
  double seconds_ = 0;
  std::thread thread_;
};

}  // namespace alloclab::lab::simulate
