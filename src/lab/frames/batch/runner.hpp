// Executes workload x strategy cells: tracking pass, untimed counted pass, batch calibration,
// then R repetitions with the cells of each workload in a shuffled order.
#pragma once

#include <functional>
#include <string>

#include "measure/measurement.hpp"

namespace alloclab::lab {

struct progress_event {
  std::size_t repetition = 0;  // 0 during preparation
  std::size_t repetitions = 0;
  std::size_t cells_done = 0;
  std::size_t cells_total = 0;
  std::string what;
};

using progress_callback = std::function<void(const progress_event&)>;

// What every cell of a workload shares, decided once per run in a fresh process and independent
// of which strategies the run measures: the batch size comes from the baseline strategy's
// single-iteration time, the checksum is the baseline's.
struct calibration {
  std::size_t batch_size = 1;
  double iteration_ns = 0;  // the baseline's median single iteration (what the batch came from)
  std::uint64_t checksum = 0;
  workload_footprint footprint;
  clock_profile clock;
};
calibration calibrate_workload(const std::string& workload, std::uint64_t seed);

// Measures config.workloads x config.strategies in this process (the batch frame's worker runs
// exactly one cell). config.batch_size 0 chooses the batch size from the fastest cell.
// Throws checksum_mismatch when strategies disagree on a workload's result.
run_measurement run_suite(const run_config& config, const progress_callback& progress);

}  // namespace alloclab::lab
