// The lab's timer and what it costs to read it.
#pragma once

#include <chrono>
#include <cstdint>

namespace alloclab::lab {

using lab_clock = std::chrono::steady_clock;

inline std::int64_t elapsed_ns(lab_clock::time_point from, lab_clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

struct clock_profile {
  double overhead_ns = 0;    // median cost of one back-to-back now() pair
  double resolution_ns = 0;  // smallest non-zero step observed
  // Iterations faster than this are timed in batches (50x the overhead).
  double batch_threshold_ns() const { return 50.0 * overhead_ns; }
};

clock_profile measure_clock();

}  // namespace alloclab::lab
