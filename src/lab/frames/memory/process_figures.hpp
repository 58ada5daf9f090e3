// What one memory-frame process measured of its cell: the record's figures
// (records/frame_figures.hpp), which the memory results cell summarises.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/frame_figures.hpp"

namespace alloclab::lab {

// Memory frame: a memory workload over time (see memory/memory_workloads.hpp).
struct memory_figures {
  std::vector<double> repetition_seconds;  // wall time of each repetition
  std::vector<double> samples_ns;          // per request (budget) or batch of accesses (table)
  std::vector<std::size_t> samples_per_repetition;
  std::size_t operations_per_sample = 1;
  nlohmann::json rss_series;  // process::rss_series as JSON, through the whole process
  nlohmann::json details;     // the workload's own figures (budget events, huge-page coverage)
};

// The stop rule reads nothing of a memory process: a budget does not size its cells.
inline std::vector<figure_readings> stop_readings_of(const memory_figures&) {
  return {};
}
inline sample_count timed_samples_of(const memory_figures&) {
  return {};
}

// Field list for nlohmann's generated serializer (found by ADL): the record's transport, from
// worker to parent and through shard files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(memory_figures, repetition_seconds, samples_ns,
                                   samples_per_repetition, operations_per_sample, rss_series,
                                   details)

}  // namespace alloclab::lab
