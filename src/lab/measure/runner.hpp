// Executes workload x strategy cells: tracking pass, untimed counted pass, batch calibration,
// then R repetitions with the cells of each workload in a shuffled order.
#pragma once

#include <functional>
#include <string>

#include "measurement.hpp"

namespace alloclab::lab {

struct progress_event {
  std::size_t repetition = 0;  // 0 during preparation
  std::size_t repetitions = 0;
  std::size_t cells_done = 0;
  std::size_t cells_total = 0;
  std::string what;
};

using progress_callback = std::function<void(const progress_event&)>;

// Throws checksum_mismatch when strategies disagree on a workload's result.
run_measurement run_suite(const run_config& config, const progress_callback& progress);

}  // namespace alloclab::lab
