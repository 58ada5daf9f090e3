// The memory frame: one memory-workload cell (budget bursts, huge table) per fresh worker process
// (`alloclab __memory-worker <spec JSON>`, see memory/memory_workloads.hpp), started under the
// cell's malloc by the same code as the other frames' workers (worker_records.hpp).
#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "schedule/executor.hpp"
#include "schedule/worker_records.hpp"
#include "frames/memory/memory_workloads.hpp"
#include "frames/memory/process_figures.hpp"
#include "frames/memory/run_options.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

// The worker's spec for task `t` of `cell`.
json spec_for(const cell_spec& cell, const task& t, const run_plan& plan) {
  memory_spec spec;
  spec.workload = cell.workload;
  spec.strategy = cell.strategy;
  spec.malloc = cell.malloc.argument;
  spec.repetitions = t.repetitions;
  spec.seed = plan.sizes.seed + t.part;
  spec.quick = plan.sizes.quick;
  spec.budget_bytes = memory_sizes_of(plan).budget.bytes;
  spec.budget_from_cgroup = memory_sizes_of(plan).budget.from_cgroup;
  spec.table_bytes = memory_sizes_of(plan).huge_table_bytes;
  return to_json(spec);
}

}  // namespace

std::unique_ptr<executor> make_memory_executor() {
  return make_worker_executor(memory_worker_command, spec_for, read_into<memory_figures>());
}

int run_memory_worker(const char* spec_json) {
  return run_frame_worker(memory_worker_command, spec_json, [](const json& j) {
    const memory_spec spec = memory_spec_from_json(j);
    const malloc_choice malloc = resolve_mallocs({spec.malloc}, alloclab::build::sanitized).at(0);
    process::worker_cell cell =
        cell_under(malloc, fmt::format("{}/{}@{}", spec.workload, spec.strategy, malloc.label));
    cell.measure = [spec] { return json{{"result", run_memory_workload(spec)}}; };
    return cell;
  });
}

}  // namespace alloclab::lab
