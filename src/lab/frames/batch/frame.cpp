#include "frames/batch/frame.hpp"

namespace alloclab::lab {

// Batch frame: every lab workload under every strategy and every malloc, the placement twin included.
void add_batch_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs) {
  for (const auto& w : plan.lab_workloads)
    for (const auto& m : lab_mallocs)
      for (const auto& s : plan.strategies)
        plan.cells.push_back({w, s, m, frame::batch, m.label == plan.placement_twin});
}

frame_module batch_frame() {
  return {frame::batch,
          "batch",
          workload_kind::lab,
          add_batch_cells,
          &measurement_sizes::repetitions,
          true,
          batch_worker_command,
          run_batch_worker,
          make_batch_executor,
          add_batch_results,
          describe_batch_frame,
          markdown::batch_section,
          nullptr,
          nullptr,
          nullptr};
}

}  // namespace alloclab::lab
