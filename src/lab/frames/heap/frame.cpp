#include "frames/heap/figures.hpp"
#include "frames/heap/frame.hpp"
#include "frames/heap/heap_workloads.hpp"
#include "frames/heap/process_figures.hpp"
#include "frames/heap/run_options.hpp"

#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
         static_cast<double>(t.repetitions * heap_sizes_of(plan).iterations) * batch_seconds;
}

// --retention-horizon, else the default for the default plan (its retention claim), else none.
double resolve_retention_horizon(const run_plan& plan, const heap_run_options& o) {
  const double seconds = o.retention_horizon_seconds.value_or(
      plan.sizes.seed_plan ? default_retention_horizon_seconds : 0);
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 600)
    throw usage_error(
        fmt::format("--retention-horizon {} is not a number of seconds in [0, 600]", seconds));
  return seconds;
}

// The heap study's sizes: --iterations batches of pairs and --repetitions, else its defaults; a
// budgeted run's first round (the batch frame's repetitions) of the claims' smallest run.
void resolve_heap_sizes(run_plan& plan, const run_request& r, const host_view&) {
  heap_plan_sizes s;
  s.iterations = r.iterations.value_or(r.quick ? heap_quick_iterations : heap_default_iterations);
  s.repetitions =
      r.repetitions.value_or(r.quick ? heap_quick_repetitions : heap_default_repetitions);
  if (plan.sizes.budget_seconds > 0) {
    s.iterations = budget_heap_iterations;
    s.repetitions = plan.sizes.repetitions;
  }
  s.retention_horizon_s =
      resolve_retention_horizon(plan, r.frame_options.get<heap_run_options>(heap_frame_name));
  plan.frame_sizes.put(heap_frame_name, s);
}

std::size_t heap_repetitions(const run_plan& plan) {
  return heap_sizes_of(plan).repetitions;
}

std::size_t heap_iterations(const run_plan& plan) {
  return heap_sizes_of(plan).iterations;
}

}  // namespace

void add_heap_run_options(CLI::App& run, frame_slots& options) {
  run.add_option("--retention-horizon",
                 options.slot<heap_run_options>(heap_frame_name).retention_horizon_seconds,
                 "Heap frame: seconds retention is watched after the last free, idle and under "
                 "light allocation (default 30 in the default plan, else 0: not watched)");
}

frame_module heap_frame() {
  frame_module row;
  row.id = frame::heap;
  row.name = heap_frame_name;
  row.report_position = 10;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::heap;
  row.add_cells = add_heap_cells;
  row.repetitions = heap_repetitions;
  row.samples_per_repetition = heap_iterations;
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
  row.read_sizes = read_slot_as<heap_plan_sizes>;
  row.add_run_options = add_heap_run_options;
  row.run_options_after = "--repetition-time";
  row.read_figures = read_figures_as<heap_figures>;
  row.budgeted = true;
  row.lockstep = true;
  row.simulation = heap_simulation;
  return row;
}

}  // namespace alloclab::lab
