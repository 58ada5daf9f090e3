// What a measuring worker computes for one cell in its own process (the batch frame's raw
// figures, before statistics). The executor wraps them into a measurement_record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "clock.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab {

struct run_config {
  std::vector<std::string> workloads;         // in suite order
  std::vector<std::string> strategies;        // in display order
  std::size_t samples_per_repetition = 1000;  // --iterations
  std::size_t repetitions = 11;
  std::uint64_t seed = 42;              // workload data
  std::uint64_t order_seed = 42;        // the shuffled run order (one per process of a split run)
  std::size_t counted_iterations = 16;  // iterations in the untimed heap-counting pass
  std::size_t batch_size = 0;           // iterations per timed sample; 0: calibrate in this process
  bool quick = false;
  // > 0: each repetition lasts about this much timed work; its samples are sized from a timed
  // warm-up (plan/budget.hpp's samples_for_time), min_samples at least, samples_per_repetition at
  // most.
  double repetition_target_ns = 0;
  std::size_t min_samples = 1;
};

enum class cell_status { ok, overflowed, not_applicable };

struct cell_measurement {
  std::string strategy;
  cell_status status = cell_status::ok;
  std::string reason;              // why there is no number (overflowed, not applicable)
  std::string warning;             // shown next to the number (the deliberate undersized fallback)
  std::vector<double> samples_ns;  // per-iteration times; batch means when batched
  std::vector<double> repetition_medians_ns;  // one median per repetition, for the U test
  std::vector<double> repetition_p99_ns;      // one p99 per repetition: how stable the tail is
  std::vector<double> repetition_means_ns;    // one mean per repetition
  std::vector<double> repetition_cv;          // one CV per repetition
  // Per repetition: the contention reference (measure/contention_reference.hpp) read right
  // before its warm-up and right after its last sample, ns per chase.
  std::vector<double> repetition_reference_before_ns;
  std::vector<double> repetition_reference_after_ns;
  // The same moments: one 2 MiB copy (contention_reference::memory_reading), ns.
  std::vector<double> repetition_memory_reference_before_ns;
  std::vector<double> repetition_memory_reference_after_ns;
  double heap_allocations_per_iteration = 0;
  double heap_bytes_per_iteration = 0;
  double upstream_fallbacks_per_iteration = 0;
  std::int64_t minor_faults = 0;         // during the timed passes
  std::int64_t peak_rss_growth_kib = 0;  // growth of the process high-water mark during this cell
  std::uint64_t timed_iterations = 0;
  std::size_t buffer_bytes = 0;
  std::uint64_t checksum = 0;
  nlohmann::json residues;  // where blocks landed in the counted pass (address_residues.hpp)
};

struct workload_measurement {
  std::string name;
  std::string description;
  workload_footprint footprint;
  std::size_t batch_size = 1;  // iterations per timed sample
  std::uint64_t checksum = 0;
  std::vector<cell_measurement> cells;  // in config.strategies order
};

struct run_measurement {
  run_config config;
  clock_profile clock;
  std::vector<workload_measurement> workloads;
  double duration_seconds = 0;
};

// Two strategies built different data for the same workload: no number may be published.
class checksum_mismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace alloclab::lab
