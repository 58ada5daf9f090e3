// How much of a trace a replay replays: a replay must cost no more than the budget `alloclab
// try` would spend on real runs, so a trace too long for it is cut after its last whole phase
// that fits (`trace info`'s phases), or inside the first phase when none fits. A cut is a time:
// every thread replays its calls recorded before it (trace/replay.hpp, replay_options::end_us).
// A trace without timestamps cannot be cut and is replayed whole; the description says so.
//
// Example:
//   const auto s = alloclab::trace::summarize(file);
//   const alloclab::trace::replay_cut cut = alloclab::trace::cut_for_budget(s, 20'000'000);
//   // cut.end_us == 0: the whole trace; else the replay stops there; cut.description says which
#pragma once

#include <cstdint>
#include <string>

#include "trace/trace_info.hpp"

namespace alloclab::trace {

struct replay_cut {
  std::uint64_t end_us = 0;  ///< replay the calls recorded before this (0: the whole trace)
  std::uint64_t calls = 0;   ///< calls replayed (estimated from the phases' windows when cut)
  std::uint64_t total_calls = 0;
  std::string description;  ///< "the whole trace" or which phases, in words
};

/// The longest prefix of whole phases with at most `max_calls` calls.
replay_cut cut_for_budget(const trace_summary& s, std::uint64_t max_calls);

}  // namespace alloclab::trace
