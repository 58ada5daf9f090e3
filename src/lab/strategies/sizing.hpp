// The tracking pass: runs one iteration of a workload on pmr containers over
// alloclab::tracking_resource and reports what an arena or pool would need.
#pragma once

#include "strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {

// Arena margin over the measured monotonic footprint (seed 000 practice: peak + 20-30 %).
inline constexpr double arena_margin = 0.25;

workload_footprint measure_footprint(const workload_entry& workload, const void* input);

}  // namespace alloclab::lab
