// The heap frame: one heap-study cell (kernel x size distribution, under one process-wide malloc)
// per fresh worker process (`alloclab __heap-worker <cell spec JSON>`, see heap/cell.hpp).
#include <iostream>

#include <fmt/format.h>

#include "schedule/executor.hpp"
#include "schedule/worker_records.hpp"
#include "frames/heap/cell.hpp"
#include "frames/heap/run_options.hpp"
#include "frames/heap/process_figures.hpp"
#include "frames/heap/heap_workloads.hpp"
#include "frames/heap/retention_phase.hpp"
#include "process/hooks.hpp"

namespace alloclab::lab {
namespace heap = alloclab::heap;
using json = nlohmann::json;

json heap_cell_spec(const cell_spec& cell, const task& t, const run_plan& plan) {
  const heap_workload& workload = *find_heap_workload(cell.workload);
  heap::cell_spec spec;
  spec.kernel = workload.kernel;
  spec.dist = workload.dist;
  spec.config.touch = workload.touch;
  spec.iterations = heap_sizes_of(plan).iterations;
  spec.repetitions = t.repetitions;
  spec.seed = plan.sizes.seed;
  spec.keep_samples = true;
  spec.settle = plan.sizes.budget_seconds <= 0 || t.part == 0;  // budgeted: the first process
  spec.malloc_name = cell.malloc.custom() ? mallocs::custom_malloc_name : cell.malloc.label;
  spec.preload = cell.malloc.preload_path;
  return heap::to_json(spec);
}

namespace {

heap_figures figures_from(const json& result, std::size_t iterations) {
  heap_figures f;
  f.iterations_per_repetition = iterations;
  f.batch_ns = result.at("batch_ns").at("samples").get<std::vector<double>>();
  f.ns_per_pair_reps = result.at("ns_per_pair_reps").get<std::vector<double>>();
  f.pairs_per_repetition = result.at("pairs_per_rep");
  f.peak_live_bytes = result.at("peak_live_bytes");
  f.total_bytes_per_repetition = result.at("total_bytes_per_rep");
  f.checksum = result.at("checksum");
  f.size_histogram_log2 = result.at("size_histogram_log2").get<std::vector<std::uint64_t>>();
  f.noop_batch_p50_ns = result.at("noop_batch_ns").value("p50", 0.0);
  f.memory = result.at("memory");
  return f;
}

// The worker executor, after the plan's retention timelines (run once, before the first cell).
class heap_executor final : public executor {
 public:
  heap_executor()
      : cells_(make_worker_executor(
            heap_worker_command, heap_cell_spec,
            [](const json& result, const run_plan& plan, measurement_record& r) {
              r.figures = frame_figures(figures_from(result, heap_sizes_of(plan).iterations));
            })) {}

  void prepare(const run_plan& plan, const progress_note& note) override {
    const auto specs = planned_timelines(plan);
    if (!specs.empty()) facts_.retention_timelines = run_retention_timelines(plan, specs, note);
  }
  measurement_record execute(const run_plan& plan, const task& t) override {
    return cells_->execute(plan, t);
  }
  json run_facts() const override { return model::write_json(facts_); }

 private:
  std::unique_ptr<executor> cells_;
  retention_phase_facts facts_;
};

}  // namespace

std::unique_ptr<executor> make_heap_executor() {
  return std::make_unique<heap_executor>();
}

int run_heap_worker(const char* spec_json) {
  return heap::heap_worker_main(spec_json, std::cout, std::cerr, before_measuring);
}

}  // namespace alloclab::lab
