// The replay frame's own figures in results.json (model/frame_part.hpp): per cell the whole
// replays' times and RSS readings, per workload the trace, in the config the replay's settings.
// Each struct names its fields once (model/fields.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

/// The one definition of a replay's fragmentation, used by the results and `advise`: peak RSS
/// growth ÷ the trace's peak live bytes (trace_summary::peak_live_bytes); none without either.
inline std::optional<double> replay_fragmentation(double peak_growth_bytes,
                                                  std::uint64_t peak_live_bytes) {
  if (peak_live_bytes == 0 || !(peak_growth_bytes >= 0)) return std::nullopt;
  return peak_growth_bytes / static_cast<double>(peak_live_bytes);
}

struct per_replay {
  double median = 0;
  std::vector<double> per_repetition;
  static constexpr const char* about_type = "one figure per whole replay, and their median";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.median, "median", "median over the replays", model::at_least(0));
    field(s.per_repetition, "per_repetition", "one per replay");
  }
};

struct replay_memory {
  std::optional<model::spread> baseline_rss_bytes, peak_rss_bytes, peak_rss_growth_bytes;
  std::uint64_t ideal_rss_bytes = 0;
  std::optional<model::spread> bookkeeping_bytes;
  std::optional<double> fragmentation;
  std::optional<model::spread> rss_after_free_bytes, rss_after_purge_bytes;
  std::optional<double> retained_after_free, retained_after_purge;
  bool peak_was_reset = false;
  model::purge_call purge;
  std::optional<model::spread> minor_faults;
  static constexpr const char* about_type =
      "readings of each process's first replay, each {median, min, max} over the processes";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.baseline_rss_bytes, "baseline_rss_bytes", "VmRSS before the replay");
    field(s.peak_rss_bytes, "peak_rss_bytes",
          "VmHWM, reset before the replay when `peak_was_reset`");
    field(s.peak_rss_growth_bytes, "peak_rss_growth_bytes",
          "peak − baseline − `bookkeeping_bytes` (the replay engine's own block table)");
    field(s.ideal_rss_bytes, "ideal_rss_bytes", "the trace's peak live bytes");
    field(s.bookkeeping_bytes, "bookkeeping_bytes", "the replay engine's own block table");
    field(s.fragmentation, "fragmentation", "median growth ÷ ideal", model::at_least(0));
    field(s.rss_after_free_bytes, "rss_after_free_bytes",
          "every block freed (a resource still alive)");
    field(s.rss_after_purge_bytes, "rss_after_purge_bytes",
          "the resource destroyed and the malloc's purge called");
    field(s.retained_after_free, "retained_after_free",
          "median RSS above baseline after the last free ÷ median growth", model::at_least(0));
    field(s.retained_after_purge, "retained_after_purge", "the same after the purge",
          model::at_least(0));
    field(s.peak_was_reset, "peak_was_reset", "VmHWM was reset before the replay");
    field(s.purge, "purge", "the purge call");
    field(s.minor_faults, "minor_faults", "minor page faults");
  }
};

// What one replay worker read around its first replay (its record's `memory`; transport between
// the worker and the parent, not results.json). The cell's replay_memory summarises them.
struct replay_memory_reading {
  bool peak_was_reset = false;
  std::uint64_t baseline_rss_bytes = 0, peak_rss_bytes = 0, rss_after_free_bytes = 0;
  std::uint64_t rss_after_purge_bytes = 0, bookkeeping_bytes = 0, minor_faults = 0;
  model::purge_call purge;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.peak_was_reset, "peak_was_reset", "VmHWM was reset before the replay");
    field(s.baseline_rss_bytes, "baseline_rss_bytes", "VmRSS before the replay");
    field(s.peak_rss_bytes, "peak_rss_bytes", "VmHWM after it");
    field(s.rss_after_free_bytes, "rss_after_free_bytes", "VmRSS after its last free");
    field(s.rss_after_purge_bytes, "rss_after_purge_bytes",
          "VmRSS after the resource was destroyed and the malloc purged");
    field(s.bookkeeping_bytes, "bookkeeping_bytes", "the replay engine's own block table");
    field(s.minor_faults, "minor_faults", "minor page faults of the replay");
    field(s.purge, "purge", "the purge call");
  }
};

struct replay_figures_out {
  std::uint64_t calls = 0, skipped_calls = 0, threads = 0;
  per_replay ns_per_call, program_ns_per_call, total_ms, wall_ms;
  replay_memory memory;
  static constexpr const char* about_type =
      "whole replays of the trace: a sample is one whole replay's ns per call, so "
      "`timing.samples` is the number of replays and `vs_std.speedup_p50` the baseline malloc's "
      "median ns per call ÷ the cell's, with its interval over replays";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.calls, "calls", "calls of one replay");
    field(s.skipped_calls, "skipped_calls",
          "unknown pointers, recorded failures, `malloc_usable_size` through a resource");
    field(s.threads, "threads", "the trace's threads");
    field(s.ns_per_call, "ns_per_call", "malloc call time per call");
    field(s.program_ns_per_call, "program_ns_per_call",
          "replayed program time per call: the calls and the modelled program work over the "
          "live blocks, from a second replay with that model after each timed one",
          model::may_be_absent);
    field(s.total_ms, "total_ms",
          "call time summed over threads (decoding and cross-thread waits excluded)");
    field(s.wall_ms, "wall_ms", "wall time of each replay");
    field(s.memory, "memory", "RSS readings");
  }
};

struct replay_cell_figures {
  std::optional<replay_figures_out> replay;
  static constexpr const char* about_type = "a replay cell";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.replay, "replay", "null without a number");
  }
};

struct trace_facts {
  std::string path;
  std::uint64_t threads = 0, monotonic_footprint = 0, aligned_allocations = 0, arena_bytes = 0;
  std::uint64_t peak_live_bytes = 0;
  std::string replayed;
  static constexpr const char* about_type = "the replayed trace (`alloclab record`)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.path, "path", "the trace's path");
    field(s.threads, "threads", "its threads");
    field(s.monotonic_footprint, "monotonic_footprint", "bytes a bump arena would consume");
    field(s.aligned_allocations, "aligned_allocations", "memalign-family calls");
    field(s.arena_bytes, "arena_bytes",
          "the `arena` resource's buffer: footprint + 64 B per aligned allocation + 25 %, "
          "page-rounded");
    field(s.peak_live_bytes, "peak_live_bytes",
          "the trace's peak live bytes, as `trace info` says (recorded time order): every cell's "
          "ideal RSS",
          model::may_be_absent);
    field(s.replayed, "replayed",
          "which part of the trace each replay replays: \"the whole trace\", or the first phases "
          "that fit the budget `try` would spend (docs/replay.md, \"Cost\")",
          model::may_be_absent);
  }
};

// Whether the replay can rank mallocs for the traced program (trace/replay_trust.hpp).
struct replay_trust_figures {
  bool predictive = true;
  std::string ranking;
  std::vector<std::string> reasons;
  double cross_thread_free_share = 0;
  std::uint64_t producer_consumer_pairs = 0;
  std::optional<double> peak_live_spread;
  std::uint64_t peak_live_lowest_bytes = 0, peak_live_highest_bytes = 0;
  std::optional<double> malloc_time_share;
  double replay_error_percent = 0;
  static constexpr const char* about_type =
      "whether the replay's malloc ranking predicts the program's, judged from the trace: "
      "cross-thread frees, producer/consumer hand-offs and a peak live set that depends on the "
      "threads' interleaving make it not predictive (advice then needs real runs, `alloclab "
      "try`)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.predictive, "predictive", "the replay's malloc ranking can stand for the program's");
    field(s.ranking, "ranking",
          "the same in words: \"not predictive for this program; run real runs (try)\" or "
          "\"predictive: ...\"");
    field(s.reasons, "reasons", "why not predictive, one sentence each (empty when predictive)");
    field(s.cross_thread_free_share, "cross_thread_free_share",
          "frees of blocks another thread allocated ÷ all frees", model::at_least(0));
    field(s.producer_consumer_pairs, "producer_consumer_pairs",
          "thread pairs where one frees 10 % or more of the other's allocations");
    field(s.peak_live_spread, "peak_live_spread",
          "(highest − lowest) ÷ highest peak live bytes over the interleavings the recording "
          "allows (file order; time windows with the threads ascending, descending); null "
          "without timestamps",
          model::at_least(0));
    field(s.peak_live_lowest_bytes, "peak_live_lowest_bytes", "the lowest of those peaks");
    field(s.peak_live_highest_bytes, "peak_live_highest_bytes", "the highest of those peaks");
    field(s.malloc_time_share, "malloc_time_share",
          "estimated share of the program's time in malloc: the baseline cell's median call "
          "time ÷ the recorded run's wall time (recording overhead included); null when either "
          "is unknown",
          model::at_least(0));
    field(s.replay_error_percent, "replay_error_percent",
          "the replay's measured error against real runs (|replay ratio ÷ real ratio − 1|, "
          "docs/replay.md): a replay ratio within this of 1 is within the replay's error, not a "
          "gain",
          model::at_least(0));
  }
};

struct replay_workload_figures {
  trace_facts trace;
  std::optional<replay_trust_figures> replay_trust;
  static constexpr const char* about_type =
      "a trace (`alloclab replay`): one cell per malloc, strategy `malloc`, then one per "
      "in-process resource under the first malloc";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.trace, "trace", "the replayed trace");
    field(s.replay_trust, "replay_trust",
          "whether the replay predicts the program's malloc ranking; null in files written "
          "before it",
          model::may_be_absent);
  }
};

struct replay_settings {
  std::string trace;
  std::size_t repetitions = 0;
  std::vector<std::string> strategies;
  static constexpr const char* about_type = "`alloclab replay`'s settings";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.trace, "trace", "the replayed trace's path");
    field(s.repetitions, "repetitions", "whole replays per cell", model::at_least(1));
    field(s.strategies, "strategies", "the in-process resources replayed");
  }
};

struct replay_config_figures {
  replay_settings replay;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.replay, "replay", "a replay's settings, in `alloclab replay`");
  }
};

}  // namespace alloclab::lab
