#include "frames/memory/figures.hpp"
#include "frames/memory/frame.hpp"
#include "frames/memory/process_figures.hpp"
#include "frames/memory/run_options.hpp"

#include <cstdint>

#include <alloclab/memory_budget.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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

// --memory-budget, else the cgroup's limit when one is set, else a default the workload crosses.
memory_budget_choice resolve_memory_budget(const run_request& r, const memory_run_options& o,
                                           const host_view& host) {
  if (o.memory_budget) {
    const std::uint64_t bytes = parse_byte_count(*o.memory_budget, "--memory-budget");
    if (bytes < min_memory_budget_bytes)
      throw usage_error(fmt::format("--memory-budget {} is below the smallest budget, {} MiB",
                                    *o.memory_budget, min_memory_budget_bytes >> 20));
    return {bytes, false, "--memory-budget"};
  }
  const alloclab::memory_budget detected = alloclab::memory_budget::detect(host.cgroup);
  if (detected.source() == alloclab::budget_source::cgroup_v1 ||
      detected.source() == alloclab::budget_source::cgroup_v2)
    return {detected.limit(), true, detected.reason()};
  return {r.quick ? quick_memory_budget_bytes : default_memory_budget_bytes, false,
          "default (no --memory-budget given and no cgroup limit set)"};
}

std::uint64_t resolve_table_bytes(const run_request& r, const memory_run_options& o) {
  if (!o.huge_table_bytes) return r.quick ? quick_huge_table_bytes : default_huge_table_bytes;
  const std::uint64_t bytes = parse_byte_count(*o.huge_table_bytes, "--huge-table-bytes");
  if (bytes < (std::uint64_t{4} << 20))
    throw usage_error(fmt::format("--huge-table-bytes {} is below the smallest table, 4 MiB",
                                  *o.huge_table_bytes));
  return bytes;
}

// The memory frame's sizes and options: --repetitions, the budget and the huge table's size.
void resolve_memory_sizes(run_plan& plan, const run_request& r, const host_view& host) {
  const memory_run_options& o = r.frame_options.get<memory_run_options>(memory_frame_name);
  memory_plan_sizes s;
  s.repetitions =
      r.repetitions.value_or(r.quick ? memory_quick_repetitions : memory_default_repetitions);
  s.budget = resolve_memory_budget(r, o, host);
  s.huge_table_bytes = resolve_table_bytes(r, o);
  plan.frame_sizes.put(memory_frame_name, s);
}

std::size_t memory_repetitions(const run_plan& plan) {
  return memory_sizes_of(plan).repetitions;
}

}  // namespace

void add_memory_run_options(CLI::App& run, frame_slots& options) {
  memory_run_options& o = options.slot<memory_run_options>(memory_frame_name);
  run.add_option("--memory-budget", o.memory_budget,
                 "Memory frame: the budget_bursts workload's budget in bytes (K/M/G suffixes); "
                 "default: the cgroup's limit when one is set, else 256M (--quick 64M)");
  run.add_option("--huge-table-bytes", o.huge_table_bytes,
                 "Memory frame: the huge_table workload's table size (default 256M, --quick 32M)");
}

frame_module memory_frame() {
  frame_module row;
  row.id = frame::memory;
  row.name = memory_frame_name;
  row.report_position = 40;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::memory;
  row.add_cells = add_memory_cells;
  row.repetitions = memory_repetitions;
  row.by_default = true;
  row.worker_command = memory_worker_command;
  row.worker_main = run_memory_worker;
  row.make_executor = make_memory_executor;
  row.add_results = add_memory_results;
  row.what_numbers_include = describe_memory_frame;
  row.expected_seconds = expected_memory_seconds;
  row.results_parts = {nullptr, nullptr, &model::part_codec_of<memory_workload_figures>(),
                       &model::part_codec_of<memory_cell_figures>()};
  row.render_section = markdown::memory_section;
  row.workloads = &memory_workload_catalogue();
  row.resolve_sizes = resolve_memory_sizes;
  row.read_sizes = read_slot_as<memory_plan_sizes>;
  row.add_run_options = add_memory_run_options;
  row.run_options_after = "--shard-costs";
  row.read_figures = read_figures_as<memory_figures>;
  return row;
}

}  // namespace alloclab::lab
