#include "trace/replay_cut.hpp"

#include <fmt/format.h>

namespace alloclab::trace {

namespace {

std::string seconds(std::uint64_t us) {
  return fmt::format("{:.2f} s", static_cast<double>(us) / 1e6);
}

std::uint64_t calls_of(const trace_summary& s) {
  std::uint64_t calls = 0;
  for (const thread_summary& t : s.threads) calls += t.events;
  return calls;
}

}  // namespace

replay_cut cut_for_budget(const trace_summary& s, std::uint64_t max_calls) {
  replay_cut cut;
  cut.total_calls = cut.calls = calls_of(s);
  if (cut.total_calls <= max_calls) {
    cut.description = "the whole trace";
    return cut;
  }
  if (s.phases.empty()) {
    cut.description = fmt::format(
        "the whole trace, over the budget's {} calls (without timestamps it cannot be cut by "
        "phase)",
        max_calls);
    return cut;
  }
  std::size_t whole = 0;
  std::uint64_t calls = 0;
  while (whole < s.phases.size() && calls + s.phases[whole].calls <= max_calls)
    calls += s.phases[whole++].calls;
  if (whole > 0) {
    cut.end_us = s.phases[whole - 1].end_us;
    cut.calls = calls;
    cut.description = fmt::format(
        "truncated: the first {} of {} phases (0 to {} of {}, {} of {} calls), to cost no more "
        "than try's budget",
        whole, s.phases.size(), seconds(cut.end_us), seconds(s.duration_us), cut.calls,
        cut.total_calls);
    return cut;
  }
  const phase& first = s.phases.front();
  const double share = static_cast<double>(max_calls) / static_cast<double>(first.calls);
  cut.end_us = first.begin_us + static_cast<std::uint64_t>(
                                    share * static_cast<double>(first.end_us - first.begin_us));
  cut.calls = max_calls;
  cut.description = fmt::format(
      "truncated: the first {} of {} inside the first of {} phases (about {} of {} calls), to "
      "cost no more than try's budget",
      seconds(cut.end_us), seconds(s.duration_us), s.phases.size(), cut.calls, cut.total_calls);
  return cut;
}

}  // namespace alloclab::trace
