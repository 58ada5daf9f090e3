#include "frames/serve/frame.hpp"

namespace alloclab::lab {

// Serve frame: every variant (strategy x malloc) of each lab workload; no placement twin (one
// iteration per request is not where the copy cliff shows).
void add_serve_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& w : plan.lab_workloads)
    for (const auto& m : plan.mallocs)
      for (const auto& s : plan.strategies) plan.cells.push_back({w, s, m, frame::serve, false});
}

frame_module serve_frame() {
  return {frame::serve,
          "serve",
          workload_kind::lab,
          add_serve_cells,
          &measurement_sizes::serve_repetitions,
          false,
          nullptr,
          nullptr,
          make_serve_executor,
          add_serve_results,
          describe_serve_frame,
          markdown::serve_section};
}

}  // namespace alloclab::lab
