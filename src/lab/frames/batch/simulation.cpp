// The batch frame's simulated cost (simulate/): the cell's worker in its "simulate" mode runs
// the cell's strategy on the workload's input, as a measured cell does, for a warm-up and then a
// fixed number of iterations inside the counted region.
#include <stdexcept>

#include "frames/batch/frame.hpp"
#include "measure/keep_alive.hpp"
#include "simulate/region.hpp"
#include "strategies/sizing.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

simulate::simulation_worker batch_simulation(const run_plan& plan, const cell_spec& cell) {
  const workload_entry* workload = find_workload(cell.workload);
  const strategy_entry* strategy = find_strategy(cell.strategy);
  if (workload == nullptr || strategy == nullptr) return {{}, "unknown workload or strategy"};
  if (!cell.malloc.missing.empty()) return {{}, cell.malloc.missing};
  if (strategy->not_installed != nullptr)
    if (std::string missing = strategy->not_installed(); !missing.empty()) return {{}, missing};
  if (std::string unsafe = thread_safety_reason(*strategy, workload->threads); !unsafe.empty())
    return {{}, unsafe};
  const bool threaded = workload->threads > 1;
  const json spec = {
      {"mode", "simulate"},
      {"workload", cell.workload},
      {"strategy", cell.strategy},
      {"malloc", cell.malloc.argument},
      {"seed", plan.sizes.seed},
      {"allow_debug", plan.allow_debug},
      {"iterations", threaded ? simulate::threaded_batch_iterations : simulate::batch_iterations},
      {"warmup",
       threaded ? simulate::threaded_batch_warmup_iterations : simulate::batch_warmup_iterations}};
  return {{batch_worker_command, spec.dump()}, ""};
}

json simulate_batch_cell(const json& request) {
  const workload_entry& workload = *find_workload(request.at("workload").get<std::string>());
  const strategy_entry* strategy = find_strategy(request.at("strategy").get<std::string>());
  if (strategy == nullptr) throw std::invalid_argument("unknown strategy");
  const prepared_input input = workload.prepare(request.at("seed").get<std::uint64_t>());
  const workload_footprint footprint = measure_footprint(workload, input.get());
  if (std::string why = strategy->not_applicable(footprint); !why.empty())
    return {{"not_applicable", why}};
  const std::unique_ptr<strategy_instance> instance = strategy->make(footprint);
  const std::size_t iterations = request.at("iterations");
  simulate::simulated_regions regions;  // the warm-up fills the simulated caches
  keep(workload.run_batch(input.get(), *instance, request.at("warmup").get<std::size_t>()));
  regions.count("iterations",
                [&] { keep(workload.run_batch(input.get(), *instance, iterations)); });
  return regions.result("iteration", iterations, "iterations", "");
}

}  // namespace alloclab::lab
