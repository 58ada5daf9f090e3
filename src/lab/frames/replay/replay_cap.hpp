// The replay's cost cap, timed on this machine: a replay (every cell's whole replays) costs no
// more than the budget `try` would spend. What a replayed call costs is measured, not assumed:
// a prefix of the trace is replayed in this process as a whole replay is (once timed, once with
// program work), and its wall time per call sizes the cut (trace/replay_cut.hpp) of what is left
// of the budget. A fixed 250 ns estimate did not hold: on a loaded machine python3's trace
// replayed at 559 ns a call, so a replay cut by it would have taken ~670 s for a 300 s cap.
// The probe is a parameter: a test gives a fake one.
//
// Example:
//   const replay_cap cap = cap_replay(summary, 130, 300, probe_replay_rate(file));
//   // cap.cut.end_us: where every replay stops (0: the whole trace); cap.ns_per_call: the rate
//   // it was sized by; cap.description: the cut and the rate, in words
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "trace/replay_cut.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::lab {

/// What a probe replay took: its wall time and the calls it replayed.
struct probe_reading {
  double wall_seconds = 0;
  std::uint64_t calls = 0;
};

/// Replays the calls recorded before `end_us` (0: every call) as a whole replay does.
using rate_probe = std::function<probe_reading(std::uint64_t end_us)>;

/// The probe's prefix: the calls that fit this share of the budget at the estimate below.
inline constexpr double probe_budget_share = 0.01;
/// What sizes the probe's prefix, and the cut when nothing can be timed: 250 ns a replayed call
/// (python3's 72 M calls, 50 whole replays in 14 min on a quiet machine; issue 42).
inline constexpr double estimated_ns_per_call = 250;

struct replay_cap {
  trace::replay_cut cut;
  double ns_per_call = estimated_ns_per_call;  ///< the rate the cut was sized by
  bool measured = false;                       ///< timed by the probe (else the estimate)
  double probe_seconds = 0;                    ///< the probe's wall time, spent from the budget
  std::uint64_t probe_calls = 0;
  std::string description;  ///< the cut's description, then the rate and how it was found
};

/// The cut that lets `whole_replays` whole replays (timed and with program work counted apart)
/// fit `budget_seconds` at the rate `probe` measures on a prefix; the probe's own time comes off
/// the budget. A trace without timestamps cannot be cut: it is not probed.
replay_cap cap_replay(const trace::trace_summary& s, std::size_t whole_replays,
                      double budget_seconds, const rate_probe& probe);

/// The real probe: replays `file`'s prefix in this process under the live malloc, once timed and
/// once with program work (trace/replay.hpp), and returns both replays' wall time (setup and
/// decoding included) and calls.
rate_probe probe_replay_rate(const trace::trace_file& file);

}  // namespace alloclab::lab
