// The heap frame's simulated cost (simulate/): the cell's worker spec, in its "simulate" mode,
// with a fixed number of batches (frames/heap/simulated_cell.cpp runs them).
#include "frames/heap/frame.hpp"

namespace alloclab::lab {

simulate::simulation_worker heap_simulation(const run_plan& plan, const cell_spec& cell) {
  if (!cell.malloc.missing.empty()) return {{}, cell.malloc.missing};
  nlohmann::json spec = heap_cell_spec(cell, task{0, 0, 1, 0}, plan);
  spec["mode"] = "simulate";
  spec["iterations"] = simulate::heap_batches;
  spec["warmup"] = simulate::heap_warmup_batches;
  spec["repetitions"] = 1;
  spec["keep_samples"] = false;
  spec["settle"] = false;
  return {{heap_worker_command, spec.dump()}, ""};
}

}  // namespace alloclab::lab
