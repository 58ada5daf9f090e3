#include "frames/replay/replay_cap.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "trace/replay.hpp"

namespace alloclab::lab {

namespace {

std::string calls_text(std::uint64_t calls) {
  if (calls >= 1'000'000) return fmt::format("{:.2f} M calls", static_cast<double>(calls) / 1e6);
  return fmt::format("{} calls", calls);
}

// The cut of the budget left after the probe, at `ns_per_call`.
trace::replay_cut cut_at(const trace::trace_summary& s, std::size_t whole_replays,
                         double seconds_left, double ns_per_call) {
  const double calls = std::max(0.0, seconds_left) * 1e9 /
                       (ns_per_call * static_cast<double>(std::max<std::size_t>(whole_replays, 1)));
  const double most = static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2);
  return trace::cut_for_budget(s, static_cast<std::uint64_t>(std::min(calls, most)));
}

}  // namespace

replay_cap cap_replay(const trace::trace_summary& s, std::size_t whole_replays,
                      double budget_seconds, const rate_probe& probe) {
  replay_cap cap;
  const auto prefix_calls = static_cast<std::uint64_t>(
      std::max(1.0, budget_seconds * probe_budget_share * 1e9 / (estimated_ns_per_call * 2)));
  const trace::replay_cut prefix = trace::cut_for_budget(s, prefix_calls);
  if (s.phases.empty()) {  // cannot be cut: nothing a rate could change
    cap.cut = cut_at(s, whole_replays, budget_seconds, cap.ns_per_call);
    cap.description = cap.cut.description + "; the cost cap not timed (no timestamps to cut by)";
    return cap;
  }
  const probe_reading reading = probe(prefix.end_us);
  cap.probe_seconds = reading.wall_seconds;
  cap.probe_calls = reading.calls;
  cap.measured = reading.calls > 0 && reading.wall_seconds > 0;
  if (cap.measured)
    cap.ns_per_call = reading.wall_seconds * 1e9 / static_cast<double>(reading.calls);
  cap.cut = cut_at(s, whole_replays, budget_seconds - cap.probe_seconds, cap.ns_per_call);
  cap.description = fmt::format(
      "{}; the cost cap ({:.0f} s for {} whole replays) sized at {:.0f} ns a replayed call, {}",
      cap.cut.description, budget_seconds, whole_replays, cap.ns_per_call,
      cap.measured ? fmt::format("timed on {} of the trace's start ({:.2f} s of wall time, timed "
                                 "and with program work)",
                                 calls_text(cap.probe_calls), cap.probe_seconds)
                   : std::string("the estimate (the probe replayed nothing)"));
  return cap;
}

rate_probe probe_replay_rate(const trace::trace_file& file) {
  return [&file](std::uint64_t end_us) {
    trace::replay_options options;
    options.end_us = end_us;
    probe_reading reading;
    try {
      for (const bool work : {false, true}) {
        options.program_work = work;
        const auto start = std::chrono::steady_clock::now();
        reading.calls += trace::replay_trace(file, options).calls;
        reading.wall_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } catch (const trace::trace_error&) {
      return probe_reading{};  // the replay's own cells report the damage
    }
    return reading;
  };
}

}  // namespace alloclab::lab
