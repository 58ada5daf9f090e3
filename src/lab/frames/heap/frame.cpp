#include "frames/heap/figures.hpp"
#include "frames/heap/frame.hpp"
#include "frames/heap/heap_workloads.hpp"
#include "frames/heap/process_figures.hpp"

namespace alloclab::lab {

// Heap frame: every heap-study workload under every malloc (no strategy: the process malloc).
void add_heap_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& w : plan.workloads.heap)
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

// The heap study's sizes: --iterations batches of pairs and --repetitions, else its defaults.
void resolve_heap_sizes(run_plan& plan, const run_request& r, const host_view&) {
  plan.sizes.heap_iterations =
      r.iterations.value_or(r.quick ? heap_quick_iterations : heap_default_iterations);
  plan.sizes.heap_repetitions =
      r.repetitions.value_or(r.quick ? heap_quick_repetitions : heap_default_repetitions);
}

}  // namespace

frame_module heap_frame() {
  frame_module row;
  row.id = frame::heap;
  row.name = "heap";
  row.report_position = 10;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::heap;
  row.add_cells = add_heap_cells;
  row.repetitions = &measurement_sizes::heap_repetitions;
  row.by_default = true;
  row.worker_command = heap_worker_command;
  row.worker_main = run_heap_worker;
  row.make_executor = make_heap_executor;
  row.add_results = add_heap_results;
  row.what_numbers_include = describe_heap_frame;
  row.expected_seconds = expected_heap_seconds;
  row.results_parts = {
      &model::part_codec_of<heap_document_figures>(), &model::part_codec_of<heap_config_figures>(),
      &model::part_codec_of<heap_workload_figures>(), &model::part_codec_of<heap_cell_figures>()};
  row.render_section = markdown::heap_section;
  row.console_lines = markdown::heap_console_lines;
  row.method_lines = markdown::heap_method_lines;
  row.workloads = &heap_workload_catalogue();
  row.resolve_sizes = resolve_heap_sizes;
  row.read_figures = read_figures_as<heap_figures>;
  row.budgeted = true;
  row.lockstep = true;
  row.simulation = heap_simulation;
  return row;
}

}  // namespace alloclab::lab
