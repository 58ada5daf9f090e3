// What one replay process measured of its cell: the record's figures
// (records/frame_figures.hpp), which the replay results cell summarises.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/frame_figures.hpp"

namespace alloclab::lab {

// Replay frame: whole replays of a recorded trace, in one process (see executors/replay_executor).
struct replay_figures {
  std::vector<double> ns_per_call;  // per repetition: call time / calls (waits excluded)
  // per repetition: replayed program time (calls and modelled program work) / calls
  std::vector<double> program_ns_per_call;
  std::vector<double> call_seconds;  // per repetition, summed over the replay's threads
  std::vector<double> wall_seconds;  // per repetition
  std::uint64_t calls = 0;           // per repetition
  std::uint64_t skipped = 0;         // per repetition: unknown pointers, recorded failures
  std::uint64_t threads = 0;
  std::uint64_t peak_live_bytes = 0;  // the trace's "ideal RSS" (trace_summary::peak_live_bytes)
  nlohmann::json memory;              // RSS readings of the process's first replay
};

// The stop rule reads nothing of a replay process: a budget does not size its cells.
inline std::vector<figure_readings> stop_readings_of(const replay_figures&) {
  return {};
}
inline sample_count timed_samples_of(const replay_figures&) {
  return {};
}

// Field list for nlohmann's generated serializer (found by ADL): the record's transport, from
// worker to parent and through shard files.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(replay_figures, ns_per_call, program_ns_per_call, call_seconds,
                                   wall_seconds, calls, skipped, threads, peak_live_bytes, memory)

}  // namespace alloclab::lab
