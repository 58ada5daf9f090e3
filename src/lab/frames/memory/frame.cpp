#include "frames/memory/figures.hpp"
#include "frames/memory/frame.hpp"

#include "frames/memory/memory_workloads.hpp"

namespace alloclab::lab {

// Memory frame: each workload's strategies under every malloc, or under the first malloc only.
void add_memory_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& name : plan.workloads.memory) {
    const memory_workload& w = *find_memory_workload(name);
    const std::size_t mallocs = w.every_malloc ? plan.mallocs.size() : 1;
    for (std::size_t m = 0; m < mallocs; ++m)
      for (const auto& s : w.strategies)
        plan.cells.push_back({name, s, plan.mallocs[m], frame::memory, false});
  }
}

namespace {

// A memory task's expected wall time: a fresh process, then whole repetitions of bursts or
// table sweeps. Measured with --quick on this project's 2-core VM (2026-11-27; docs/fleet.md):
// 0.1-0.4 s a repetition; the default sizes are 4-8 times larger.
double expected_memory_seconds(const run_plan& plan, const task& t) {
  const double repetition_seconds = plan.sizes.quick ? 0.25 : 1.5;
  return 0.05 + static_cast<double>(t.repetitions) * repetition_seconds;
}

}  // namespace

frame_module memory_frame() {
  frame_module row;
  row.id = frame::memory;
  row.name = "memory";
  row.measures = workload_kind::memory;
  row.add_cells = add_memory_cells;
  row.repetitions = &measurement_sizes::memory_repetitions;
  row.by_default = true;
  row.worker_command = memory_worker_command;
  row.worker_main = run_memory_worker;
  row.make_executor = make_memory_executor;
  row.add_results = add_memory_results;
  row.describe = describe_memory_frame;
  row.expected_seconds = expected_memory_seconds;
  row.results_parts = {nullptr, nullptr, &model::part_codec_of<memory_workload_figures>(),
                       &model::part_codec_of<memory_cell_figures>()};
  row.render_section = markdown::memory_section;
  row.workloads = &memory_workload_catalogue();
  return row;
}

}  // namespace alloclab::lab
