// The heap worker's simulation mode (cell.hpp's simulated_worker_cell): the NOOP kernel and the
// malloc kernel, each a counted region of simulate/region.hpp, after a warm-up of the malloc
// kernel; the simulated cost of a malloc/free pair is the malloc region's less the NOOP's.
#include "frames/heap/cell.hpp"
#include "simulate/region.hpp"

namespace alloclab::heap {

process::worker_cell simulated_worker_cell(const cell_spec& spec, std::size_t warmup_batches) {
  process::worker_cell cell;
  cell.id = std::string(to_string(spec.kernel)) + "_" + std::string(to_string(spec.dist)) +
            "/malloc@" + mallocs::named_malloc_label(spec.malloc_name, spec.preload) +
            " (simulated)";
  cell.prove = [spec] { return mallocs::prove_named(spec.malloc_name, spec.preload); };
  cell.measure = [spec, warmup_batches] {
    const std::vector<std::uint32_t> sizes =
        make_sizes(spec.dist, spec.iterations * spec.config.batch, spec.seed, spec.dist_params);
    validate_kernel_args(sizes, spec.config);
    lab::simulate::simulated_regions regions;  // the warm-up fills the simulated caches
    run_kernel<malloc_policy>(spec.kernel, sizes, warmup_batches, spec.config);
    std::uint64_t pairs = 0;
    regions.count(
        "noop", [&] { run_kernel<noop_policy>(spec.kernel, sizes, spec.iterations, spec.config); });
    regions.count("malloc", [&] {
      pairs = run_kernel<malloc_policy>(spec.kernel, sizes, spec.iterations, spec.config).pairs;
    });
    return nlohmann::json{{"result", regions.result("pair", pairs, "malloc", "noop")}};
  };
  return cell;
}

}  // namespace alloclab::heap
