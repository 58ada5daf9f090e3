#include "measurement_json.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json footprint_json(const workload_footprint& f) {
  return {{"allocations", f.allocations},
          {"bytes_requested", f.bytes_requested},
          {"peak_bytes", f.peak_bytes},
          {"peak_blocks", f.peak_blocks},
          {"largest_request", f.largest_request},
          {"monotonic_footprint", f.monotonic_footprint},
          {"suggested_arena_bytes", f.suggested_arena_bytes}};
}

workload_footprint footprint_from(const json& j) {
  workload_footprint f;
  f.allocations = j.at("allocations");
  f.bytes_requested = j.at("bytes_requested");
  f.peak_bytes = j.at("peak_bytes");
  f.peak_blocks = j.at("peak_blocks");
  f.largest_request = j.at("largest_request");
  f.monotonic_footprint = j.at("monotonic_footprint");
  f.suggested_arena_bytes = j.at("suggested_arena_bytes");
  return f;
}

json cell_json(const cell_measurement& c) {
  return {{"strategy", c.strategy},
          {"status", static_cast<int>(c.status)},
          {"reason", c.reason},
          {"warning", c.warning},
          {"samples_ns", c.samples_ns},
          {"repetition_medians_ns", c.repetition_medians_ns},
          {"repetition_p99_ns", c.repetition_p99_ns},
          {"heap_allocations_per_iteration", c.heap_allocations_per_iteration},
          {"heap_bytes_per_iteration", c.heap_bytes_per_iteration},
          {"upstream_fallbacks_per_iteration", c.upstream_fallbacks_per_iteration},
          {"minor_faults", c.minor_faults},
          {"peak_rss_growth_kib", c.peak_rss_growth_kib},
          {"timed_iterations", c.timed_iterations},
          {"buffer_bytes", c.buffer_bytes},
          {"checksum", c.checksum}};
}

cell_measurement cell_from(const json& j) {
  cell_measurement c;
  c.strategy = j.at("strategy");
  c.status = static_cast<cell_status>(j.at("status").get<int>());
  c.reason = j.at("reason");
  c.warning = j.at("warning");
  c.samples_ns = j.at("samples_ns").get<std::vector<double>>();
  c.repetition_medians_ns = j.at("repetition_medians_ns").get<std::vector<double>>();
  c.repetition_p99_ns = j.at("repetition_p99_ns").get<std::vector<double>>();
  c.heap_allocations_per_iteration = j.at("heap_allocations_per_iteration");
  c.heap_bytes_per_iteration = j.at("heap_bytes_per_iteration");
  c.upstream_fallbacks_per_iteration = j.at("upstream_fallbacks_per_iteration");
  c.minor_faults = j.at("minor_faults");
  c.peak_rss_growth_kib = j.at("peak_rss_growth_kib");
  c.timed_iterations = j.at("timed_iterations");
  c.buffer_bytes = j.at("buffer_bytes");
  c.checksum = j.at("checksum");
  return c;
}

json workload_json(const workload_measurement& w) {
  json cells = json::array();
  for (const auto& c : w.cells) cells.push_back(cell_json(c));
  return {{"name", w.name},
          {"description", w.description},
          {"footprint", footprint_json(w.footprint)},
          {"batch_size", w.batch_size},
          {"checksum", w.checksum},
          {"cells", std::move(cells)}};
}

workload_measurement workload_from(const json& j) {
  workload_measurement w;
  w.name = j.at("name");
  w.description = j.at("description");
  w.footprint = footprint_from(j.at("footprint"));
  w.batch_size = j.at("batch_size");
  w.checksum = j.at("checksum");
  for (const auto& c : j.at("cells")) w.cells.push_back(cell_from(c));
  return w;
}

}  // namespace

json to_json(const run_config& config) {
  return {{"workloads", config.workloads},
          {"strategies", config.strategies},
          {"samples_per_repetition", config.samples_per_repetition},
          {"repetitions", config.repetitions},
          {"seed", config.seed},
          {"order_seed", config.order_seed},
          {"processes", config.processes},
          {"counted_iterations", config.counted_iterations},
          {"quick", config.quick},
          {"malloc_label", config.malloc_label}};
}

run_config run_config_from_json(const json& j) {
  run_config config;
  config.workloads = j.at("workloads").get<std::vector<std::string>>();
  config.strategies = j.at("strategies").get<std::vector<std::string>>();
  config.samples_per_repetition = j.at("samples_per_repetition");
  config.repetitions = j.at("repetitions");
  config.seed = j.at("seed");
  config.order_seed = j.at("order_seed");
  config.processes = j.at("processes");
  config.counted_iterations = j.at("counted_iterations");
  config.quick = j.at("quick");
  config.malloc_label = j.at("malloc_label");
  return config;
}

json to_json(const run_measurement& run) {
  json workloads = json::array();
  for (const auto& w : run.workloads) workloads.push_back(workload_json(w));
  return {{"config", to_json(run.config)},
          {"clock",
           {{"overhead_ns", run.clock.overhead_ns}, {"resolution_ns", run.clock.resolution_ns}}},
          {"workloads", std::move(workloads)},
          {"duration_seconds", run.duration_seconds}};
}

run_measurement run_measurement_from_json(const json& j) {
  run_measurement run;
  run.config = run_config_from_json(j.at("config"));
  run.clock.overhead_ns = j.at("clock").at("overhead_ns");
  run.clock.resolution_ns = j.at("clock").at("resolution_ns");
  for (const auto& w : j.at("workloads")) run.workloads.push_back(workload_from(w));
  run.duration_seconds = j.at("duration_seconds");
  return run;
}

}  // namespace alloclab::lab
