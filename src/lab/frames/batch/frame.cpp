#include "frames/batch/figures.hpp"
#include "frames/batch/frame.hpp"
#include "frames/batch/process_figures.hpp"
#include "workloads/catalogue.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {

// Batch frame: every lab workload under every strategy and every malloc, the placement twin included.
void add_batch_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs) {
  for (const auto& w : plan.workloads.lab)
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

// A multi-threaded workload's threads contend for real only with a CPU each.
bool batch_cell_uses_every_cpu(const cell_spec& c) {
  const workload_entry* w = find_workload(c.workload);
  return w != nullptr && w->threads > 1;
}

// What a cell's counted pass read, for `export` (export/frame_export_hook.hpp).
std::optional<heap_per_iteration> batch_heap_of(const model::cell& cell) {
  const batch_cell_figures* f = cell.figures.as<batch_cell_figures>();
  if (f == nullptr || !f->heap) return std::nullopt;
  return heap_per_iteration{f->heap->allocations_per_iteration, f->heap->bytes_per_iteration};
}

// The placement check's verdicts on a workload, for the fleet report (merge/fleet.hpp).
std::vector<placement_verdict> batch_placement_verdicts(const model::workload& workload) {
  std::vector<placement_verdict> verdicts;
  const batch_workload_figures* f = batch_figures_of(workload);
  if (f == nullptr || !f->placement) return verdicts;
  for (const strategy_placement& s : f->placement->strategies)
    verdicts.push_back({s.strategy, s.placement_driven});
  return verdicts;
}

// The batch frame's repetitions are the plan's shared ones (--repetitions, or a budget's).
std::size_t batch_repetitions(const run_plan& plan) {
  return plan.sizes.repetitions;
}

}  // namespace

frame_module batch_frame() {
  frame_module row;
  row.id = frame::batch;
  row.name = "batch";
  row.report_position = 30;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::lab;
  row.add_cells = add_batch_cells;
  row.repetitions = batch_repetitions;
  row.by_default = true;
  row.worker_command = batch_worker_command;
  row.worker_main = run_batch_worker;
  row.make_executor = make_batch_executor;
  row.add_results = add_batch_results;
  row.what_numbers_include = describe_batch_frame;
  row.expected_seconds = expected_batch_seconds;
  row.heap_of = batch_heap_of;
  row.placement_verdicts = batch_placement_verdicts;
  row.results_parts = {nullptr, nullptr, &model::part_codec_of<batch_workload_figures>(),
                       &model::part_codec_of<batch_cell_figures>()};
  row.render_summary = markdown::batch_summary_sections;
  row.render_section = markdown::batch_section;
  row.render_details = markdown::batch_workload_sections;
  row.console_lines = markdown::batch_console_lines;
  row.workloads = &lab_workload_catalogue();
  row.read_figures = read_figures_as<batch_figures>;
  row.budgeted = true;
  row.lockstep = true;
  row.uses_every_cpu = batch_cell_uses_every_cpu;
  row.simulation = batch_simulation;
  return row;
}

}  // namespace alloclab::lab
