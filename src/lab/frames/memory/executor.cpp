// The memory frame: one memory-workload cell (budget bursts, huge table) per fresh worker process
// (`alloclab __memory-worker <spec JSON>`, see memory/memory_workloads.hpp), started under the
// cell's malloc by the same code as the other frames' workers (worker_records.hpp).
#include <iostream>

#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "schedule/executor.hpp"
#include "process/worker_records.hpp"
#include "frames/memory/memory_workloads.hpp"

namespace alloclab::lab {
namespace heap = alloclab::heap;
using json = nlohmann::json;

namespace {

memory_spec spec_for(const cell_spec& cell, const task& t, const run_plan& plan) {
  memory_spec spec;
  spec.workload = cell.workload;
  spec.strategy = cell.strategy;
  spec.malloc = cell.malloc.argument;
  spec.repetitions = t.repetitions;
  spec.seed = plan.sizes.seed + t.part;
  spec.quick = plan.sizes.quick;
  spec.budget_bytes = plan.memory_budget.bytes;
  spec.budget_from_cgroup = plan.memory_budget.from_cgroup;
  spec.table_bytes = plan.huge_table_bytes;
  return spec;
}

class memory_executor final : public executor {
 public:
  void prepare(const run_plan&, const progress_note&) override {}

  measurement_record execute(const run_plan& plan, const task& t) override {
    const std::string spec = to_json(spec_for(plan.cells.at(t.cell), t, plan)).dump();
    return run_worker_task(
        plan, t, memory_worker_command, spec,
        [](const json& result, measurement_record& r) { r.memory = result.get<memory_figures>(); });
  }

  json run_facts() const override { return json::object(); }
};

}  // namespace

std::unique_ptr<executor> make_memory_executor() {
  return std::make_unique<memory_executor>();
}

int run_memory_worker(const char* spec_json) {
  try {
    const memory_spec spec = memory_spec_from_json(json::parse(spec_json));
    const malloc_choice malloc = resolve_mallocs({spec.malloc}, alloclab::build::sanitized).at(0);
    inject_test_fault(fmt::format("{}/{}@{}", spec.workload, spec.strategy, malloc.label));
    json live;
    if (!prove_or_refuse(malloc, live)) return heap::worker_exit_refused;
    json document = {{"measured", true}, {"live_allocator", live}};
    if (!live.value("ok", false)) document["sanitizer_allocator"] = true;  // see prove_or_refuse
    document["result"] = run_memory_workload(spec);
    std::cout << document.dump() << '\n';
    std::cout.flush();
    return std::cout ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "alloclab " << memory_worker_command << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace alloclab::lab
