// What one batch process measured of its cell: the record's figures (records/frame_figures.hpp),
// which the batch results cell summarises (frames/batch/results_cell.cpp).
#pragma once

#include <cstddef>

#include <nlohmann/json.hpp>

#include "measure/measurement.hpp"
#include "records/frame_figures.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab {

// Batch frame: a lab workload's iterations timed in a loop (see measure/runner.hpp).
struct batch_figures {
  std::size_t batch_size = 1;  // iterations per timed sample
  workload_footprint footprint;
  cell_measurement cell;  // samples, counted pass, faults; cell.checksum is one iteration's
};

// What the stop rule reads of a batch process: its repetitions by figure.
inline std::vector<figure_readings> stop_readings_of(const batch_figures& figures) {
  const cell_measurement& c = figures.cell;
  figure_readings f;
  const auto add = [&f](const char* figure, const std::vector<double>& values) {
    if (!values.empty()) f[figure] = values;
  };
  add("p50", c.repetition_medians_ns);
  add("mean", c.repetition_means_ns);
  add("p99", c.repetition_p99_ns);
  add("cv", c.repetition_cv);
  std::vector<double> jitter;
  for (std::size_t i = 0; i < c.repetition_p99_ns.size() && i < c.repetition_medians_ns.size(); ++i)
    jitter.push_back(c.repetition_p99_ns[i] - c.repetition_medians_ns[i]);
  add("jitter", jitter);
  if (f.empty()) return {};
  return {f};
}

inline sample_count timed_samples_of(const batch_figures& figures) {
  return {figures.cell.samples_ns.size(), figures.cell.repetition_medians_ns.size()};
}

// Field lists for nlohmann's generated serializers (found by ADL): the record's transport, from
// worker to parent and through shard files.
NLOHMANN_JSON_SERIALIZE_ENUM(cell_status, {{cell_status::ok, "ok"},
                                           {cell_status::overflowed, "overflowed"},
                                           {cell_status::not_applicable, "not_applicable"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(workload_footprint, allocations, bytes_requested, peak_bytes,
                                   peak_blocks, largest_request, monotonic_footprint,
                                   suggested_arena_bytes, size_histogram_log2)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(clock_profile, overhead_ns, resolution_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(
    cell_measurement, strategy, status, reason, warning, samples_ns, repetition_medians_ns,
    repetition_p99_ns, repetition_means_ns, repetition_cv, repetition_reference_before_ns,
    repetition_reference_after_ns, repetition_memory_reference_before_ns,
    repetition_memory_reference_after_ns, heap_allocations_per_iteration, heap_bytes_per_iteration,
    upstream_fallbacks_per_iteration, minor_faults, peak_rss_growth_kib, timed_iterations,
    buffer_bytes, checksum, residues)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(batch_figures, batch_size, footprint, cell)

}  // namespace alloclab::lab
