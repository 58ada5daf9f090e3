// What one heap-study process measured of its cell: the record's figures
// (records/frame_figures.hpp), which the heap results cell summarises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/frame_figures.hpp"

namespace alloclab::lab {

// Heap frame: a seed-003 kernel under the process-wide malloc (see heap/cell.hpp).
struct heap_figures {
  std::size_t iterations_per_repetition = 0;  // batches of 100 pairs
  std::vector<double> batch_ns;               // raw per-batch times, every repetition
  std::vector<double> ns_per_pair_reps;       // NOOP-subtracted, one per repetition
  std::uint64_t pairs_per_repetition = 0;
  std::uint64_t peak_live_bytes = 0;
  std::uint64_t total_bytes_per_repetition = 0;
  std::uint64_t checksum = 0;
  std::vector<std::uint64_t> size_histogram_log2;  // the kernel's sizes (stats/log2_histogram)
  double noop_batch_p50_ns = 0;
  nlohmann::json memory;  // the worker's memory figures (heap::memory_figures as JSON)
};

// What the stop rule reads of a heap process: the NOOP-subtracted ns per pair of each repetition.
inline std::vector<figure_readings> stop_readings_of(const heap_figures& f) {
  return {{{"ns_per_pair", f.ns_per_pair_reps}}};
}
inline sample_count timed_samples_of(const heap_figures&) {
  return {};
}

// Field list for nlohmann's generated serializer (found by ADL): the record's transport, from
// worker to parent and through shard files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(heap_figures, iterations_per_repetition, batch_ns,
                                   ns_per_pair_reps, pairs_per_repetition, peak_live_bytes,
                                   total_bytes_per_repetition, checksum, size_histogram_log2,
                                   noop_batch_p50_ns, memory)

}  // namespace alloclab::lab
