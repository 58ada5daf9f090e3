// Whether a replay of a trace can predict the program's malloc ranking, judged from the trace
// alone. A replay runs one recorded interleaving of the program's threads and waits where a
// thread frees another's block; it cannot replay how a malloc changes the program's own timing.
// So a trace whose threads hand blocks to each other (cross-thread frees, producer/consumer
// pairs) or whose peak live set depends on how its threads interleaved is one whose replay
// ranking is "not predictive for this program": its advice needs real runs (`alloclab try`).
// Validated on real programs by bench/replay_trust_table.sh (docs/replay.md, "When a replay
// predicts").
//
// Example:
//   const auto summary = alloclab::trace::summarize(file);
//   const alloclab::trace::replay_trust t = alloclab::trace::assess_replay(summary);
//   if (!t.predictive) std::puts(alloclab::trace::not_predictive_text);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_info.hpp"

namespace alloclab::trace {

/// A cross-thread free share above this (of all frees) makes a replay not predictive.
inline constexpr double max_predictive_cross_free_share = 0.01;
/// A producer/consumer pair: one thread frees at least this share of another's allocations.
inline constexpr double handoff_pair_share = 0.10;
/// Peaks differing by more than this between interleavings: a timing-dependent live set.
inline constexpr double max_predictive_peak_spread = 0.10;

/// The replay's error against real runs: the largest gap between a replay's ratio and the real
/// runs' ratio (|replay ÷ real − 1|, malloc call time) measured by scripts/validate-replay.sh
/// (docs/replay.md, "The replay's error": 31 % on python3, 31 % on jq), rounded up to 5 %. A
/// replay ratio within this of 1 is within the replay's error, whatever its own U test says.
inline constexpr double replay_error_percent = 35;

inline constexpr const char* not_predictive_text =
    "not predictive for this program; run real runs (try)";
inline constexpr const char* predictive_text =
    "predictive: one thread's order or independent threads; gains within the replay's error "
    "are not gains";

struct replay_trust {
  bool predictive = true;
  std::vector<std::string> reasons;  ///< why not predictive (empty when predictive)
  double cross_thread_free_share = 0;
  std::uint64_t cross_thread_frees = 0;
  std::uint64_t producer_consumer_pairs = 0;
  bool timed = false;  ///< the interleavings' peaks are known (the trace has timestamps)
  double peak_live_spread = 0;
  std::uint64_t peak_live_bytes = 0, peak_live_lowest = 0, peak_live_highest = 0;
};

/// The assessment of a trace's summary.
replay_trust assess_replay(const trace_summary& s);

/// Whether a replay ratio (baseline ÷ cell, > 1 faster) is within the replay's error of 1.
bool within_replay_error(double ratio) noexcept;

/// `trace info`'s section: the verdict, its reasons and the figures.
std::string render_replay_trust(const replay_trust& t);

}  // namespace alloclab::trace
