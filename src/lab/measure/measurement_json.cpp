#include "measurement_json.hpp"

namespace alloclab::lab {

// Field lists for nlohmann's generated to_json/from_json (found by ADL).
NLOHMANN_JSON_SERIALIZE_ENUM(cell_status, {{cell_status::ok, "ok"},
                                           {cell_status::overflowed, "overflowed"},
                                           {cell_status::not_applicable, "not_applicable"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(workload_footprint, allocations, bytes_requested, peak_bytes,
                                   peak_blocks, largest_request, monotonic_footprint,
                                   suggested_arena_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(cell_measurement, strategy, status, reason, warning, samples_ns,
                                   repetition_medians_ns, repetition_p99_ns,
                                   heap_allocations_per_iteration, heap_bytes_per_iteration,
                                   upstream_fallbacks_per_iteration, minor_faults,
                                   peak_rss_growth_kib, timed_iterations, buffer_bytes, checksum)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(workload_measurement, name, description, footprint, batch_size,
                                   checksum, cells)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(run_config, workloads, strategies, samples_per_repetition,
                                   repetitions, seed, order_seed, processes, counted_iterations,
                                   quick, malloc_label)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(clock_profile, overhead_ns, resolution_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(run_measurement, config, clock, workloads, duration_seconds)

nlohmann::json to_json(const run_config& config) {
  return config;
}

run_config run_config_from_json(const nlohmann::json& j) {
  return j.get<run_config>();
}

nlohmann::json to_json(const run_measurement& run) {
  return run;
}

run_measurement run_measurement_from_json(const nlohmann::json& j) {
  return j.get<run_measurement>();
}

}  // namespace alloclab::lab
