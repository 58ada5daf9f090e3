// The one rule for a replay ratio within the replay's error (trace/replay_trust.hpp,
// replay_error_percent): used by within_replay_error and by the report, which reads the error
// from the results (workloads[].replay_trust.replay_error_percent).
#pragma once

namespace alloclab::trace {

/// Whether `ratio` (baseline ÷ cell, > 1 faster) is within `error_percent` of 1, either way.
bool within_error_of_one(double ratio, double error_percent) noexcept;

}  // namespace alloclab::trace
