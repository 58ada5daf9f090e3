#include "frames/heap/frame.hpp"

namespace alloclab::lab {

// Heap frame: every heap-study workload under every malloc (no strategy: the process malloc).
void add_heap_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& w : plan.heap_workloads)
    for (const auto& m : plan.mallocs) plan.cells.push_back({w, "malloc", m, frame::heap, false});
}

frame_module heap_frame() {
  return {frame::heap,
          "heap",
          workload_kind::heap,
          add_heap_cells,
          &measurement_sizes::heap_repetitions,
          true,
          heap_worker_command,
          run_heap_worker,
          make_heap_executor,
          add_heap_results,
          describe_heap_frame,
          markdown::heap_section,
          nullptr,
          nullptr,
          nullptr};
}

}  // namespace alloclab::lab
