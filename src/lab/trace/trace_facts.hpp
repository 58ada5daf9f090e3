// What a replay needs to know about a recorded trace before it builds a resource for it: its
// threads, the footprint a bump arena would reach, its aligned requests, and whether a replay can
// predict its malloc ranking (trace/replay_trust.hpp) with the trace's peak live bytes. The replay command
// reads them from the trace (`trace info`'s summary); the run request carries them to the replay
// frame's workers and a shard file keeps them.
//
// Example:
//   alloclab::lab::replay_trace_facts facts;
//   facts.threads = 4;                        // a single-threaded resource refuses this trace
//   facts.trust = trace::assess_replay(summary);  // cross-thread frees: not predictive
//   nlohmann::json j = facts;                 // {"threads":4,"monotonic_footprint":0,...}
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "trace/replay_trust.hpp"

namespace alloclab::trace {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(replay_trust, predictive, reasons,
                                                cross_thread_free_share, cross_thread_frees,
                                                producer_consumer_pairs, timed, peak_live_spread,
                                                peak_live_bytes, peak_live_lowest,
                                                peak_live_highest)
}  // namespace alloclab::trace

namespace alloclab::lab {

struct replay_trace_facts {
  std::size_t threads = 1;
  std::uint64_t monotonic_footprint = 0;  // a bump arena's consumption (trace info)
  std::uint64_t aligned_allocations = 0;  // memalign family: each may pad up to its alignment
  std::uint64_t duration_us = 0;          // the recorded run's length (0: unknown)
  trace::replay_trust trust;  // whether the replay can rank mallocs; its peak live bytes
  std::uint64_t end_us = 0;   // replay the calls recorded before this (0: all; replay_cut.hpp)
  std::string replayed = "the whole trace";  // which part, in words
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(replay_trace_facts, threads, monotonic_footprint,
                                                aligned_allocations, duration_us, trust, end_us,
                                                replayed)

}  // namespace alloclab::lab
