#include "frames/batch/figures.hpp"
#include "frames/batch/frame.hpp"
#include "workloads/catalogue.hpp"

namespace alloclab::lab {

// Batch frame: every lab workload under every strategy and every malloc, the placement twin included.
void add_batch_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs) {
  for (const auto& w : plan.lab_workloads)
    for (const auto& m : lab_mallocs)
      for (const auto& s : plan.strategies)
        plan.cells.push_back({w, s, m, frame::batch, m.label == plan.placement_twin});
}

namespace {

// A batch task's expected wall time: a fresh process (start, counted pass, warm-up), then its
// repetitions' timed samples. Measured with --quick on this project's 2-core VM (2026-11-27;
// docs/fleet.md): about 20 ms before the first sample and 10-60 us a sample, by workload (a
// sample is one iteration or a batch of >= 50 timer overheads); the plan cannot know which.
double expected_batch_seconds(const run_plan& plan, const task& t) {
  constexpr double process_seconds = 0.02, sample_seconds = 50e-6;
  return process_seconds +
         static_cast<double>(t.repetitions * plan.sizes.samples_per_repetition) * sample_seconds;
}

}  // namespace

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
          nullptr,
          nullptr,
          nullptr,
          nullptr,
          expected_batch_seconds,
          {nullptr, nullptr, &model::part_codec_of<batch_workload_figures>(),
           &model::part_codec_of<batch_cell_figures>()},
          markdown::batch_section,
          &lab_workload_catalogue()};
}

}  // namespace alloclab::lab
