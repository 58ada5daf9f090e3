#include "frames/memory/frame.hpp"

#include "frames/memory/memory_workloads.hpp"

namespace alloclab::lab {

// Memory frame: each workload's strategies under every malloc, or under the first malloc only.
void add_memory_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& name : plan.memory_workloads) {
    const memory_workload& w = *find_memory_workload(name);
    const std::size_t mallocs = w.every_malloc ? plan.mallocs.size() : 1;
    for (std::size_t m = 0; m < mallocs; ++m)
      for (const auto& s : w.strategies)
        plan.cells.push_back({name, s, plan.mallocs[m], frame::memory, false});
  }
}

frame_module memory_frame() {
  return {frame::memory,
          "memory",
          workload_kind::memory,
          add_memory_cells,
          &measurement_sizes::memory_repetitions,
          true,
          memory_worker_command,
          run_memory_worker,
          make_memory_executor,
          add_memory_results,
          describe_memory_frame,
          markdown::memory_section,
          nullptr,
          nullptr,
          nullptr};
}

}  // namespace alloclab::lab
