#include "frames/heap/figures.hpp"
#include "frames/heap/frame.hpp"
#include "frames/heap/heap_workloads.hpp"

namespace alloclab::lab {

// Heap frame: every heap-study workload under every malloc (no strategy: the process malloc).
void add_heap_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& w : plan.heap_workloads)
    for (const auto& m : plan.mallocs) plan.cells.push_back({w, "malloc", m, frame::heap, false});
}

namespace {

// A heap task's expected wall time: a fresh process whose memory figures wait about a second
// after the last free, then batches of 100 malloc/free pairs. Measured with --quick on this
// project's 2-core VM (2026-11-27; docs/fleet.md): 1.2-1.3 s for 300 batches.
double expected_heap_seconds(const run_plan& plan, const task& t) {
  constexpr double process_seconds = 1.1, batch_seconds = 300e-6;
  return process_seconds +
         static_cast<double>(t.repetitions * plan.sizes.heap_iterations) * batch_seconds;
}

}  // namespace

frame_module heap_frame() {
  return {
      frame::heap,
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
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      expected_heap_seconds,
      {&model::part_codec_of<heap_document_figures>(), &model::part_codec_of<heap_config_figures>(),
       &model::part_codec_of<heap_workload_figures>(), &model::part_codec_of<heap_cell_figures>()},
      markdown::heap_section,
      &heap_workload_catalogue()};
}

}  // namespace alloclab::lab
