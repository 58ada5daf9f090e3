// The parent side of the retention timelines (retention_timeline.hpp): which ones a plan asks
// for, and running them. They run before the heap frame's first task, side by side (each mostly
// sleeps, none is timed), in waves whose heap growth fits in half of the machine's available
// memory. A timeline that fails is kept with its reason; the run goes on.
#pragma once

#include <string>
#include <vector>

#include "frames/heap/retention_figures.hpp"
#include "frames/heap/retention_timeline.hpp"
#include "plan/plan.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {

// The plan's timelines: each FIFO distribution of its heap workloads x {glibc, jemalloc with its
// background thread off and on, mimalloc} (those the plan measures) x {idle, light load}; none
// when heap_sizes_of(plan).retention_horizon_s is 0.
std::vector<alloclab::heap::retention_spec> planned_timelines(const run_plan& plan);

// Runs them; one per spec, in spec order.
std::vector<retention_timeline_run> run_retention_timelines(
    const run_plan& plan, const std::vector<alloclab::heap::retention_spec>& specs,
    const progress_note& note);

// What the heap frame's executor keeps of a run (its run_facts, in shard files too): the timelines.
struct retention_phase_facts {
  std::vector<retention_timeline_run> retention_timelines;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.retention_timelines, "retention_timelines", "each timeline, in spec order",
          model::may_be_absent);
  }
};

// Groups of specs (indices) whose estimated heap growth fits in `memory_bytes` together.
std::vector<std::vector<std::size_t>> retention_waves(
    const std::vector<alloclab::heap::retention_spec>& specs, double memory_bytes);

}  // namespace alloclab::lab
