// What a replay needs to know about a recorded trace before it builds a resource for it: its
// threads, the footprint a bump arena would reach, and its aligned requests. The replay command
// reads them from the trace (`trace info`'s summary); the run request carries them to the replay
// frame's workers and a shard file keeps them.
//
// Example:
//   alloclab::lab::replay_trace_facts facts;
//   facts.threads = 4;                        // a single-threaded resource refuses this trace
//   nlohmann::json j = facts;                 // {"threads":4,"monotonic_footprint":0,...}
#pragma once

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

struct replay_trace_facts {
  std::size_t threads = 1;
  std::uint64_t monotonic_footprint = 0;  // a bump arena's consumption (trace info)
  std::uint64_t aligned_allocations = 0;  // memalign family: each may pad up to its alignment
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(replay_trace_facts, threads, monotonic_footprint,
                                   aligned_allocations)

}  // namespace alloclab::lab
