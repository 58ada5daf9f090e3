#include "trace/replay_trust.hpp"

#include "trace/replay_error.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace alloclab::trace {

namespace {

double share(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Pairs where one thread frees at least handoff_pair_share of another's allocations.
std::uint64_t producer_consumer_pairs(const trace_summary& s) {
  std::map<std::uint32_t, std::uint64_t> allocations;
  for (const thread_summary& t : s.threads) allocations[t.thread] = t.allocations;
  std::uint64_t pairs = 0;
  for (const handoff& h : s.handoffs)
    if (share(h.blocks, allocations[h.from]) >= handoff_pair_share) ++pairs;
  return pairs;
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

replay_trust assess_replay(const trace_summary& s) {
  replay_trust t;
  t.cross_thread_frees = s.cross_thread_frees;
  t.cross_thread_free_share = share(s.cross_thread_frees, s.frees);
  t.producer_consumer_pairs = producer_consumer_pairs(s);
  t.timed = s.interleavings.timed;
  t.peak_live_spread = s.interleavings.spread();
  t.peak_live_bytes = s.peak_live_bytes;
  t.peak_live_lowest = s.interleavings.lowest();
  t.peak_live_highest = s.interleavings.highest();
  if (t.cross_thread_free_share > max_predictive_cross_free_share)
    t.reasons.push_back(fmt::format(
        "{:.1f} % of frees are cross-thread (above {:.0f} %): the real program's timing, not "
        "the replay's waits, decides when they happen",
        100 * t.cross_thread_free_share, 100 * max_predictive_cross_free_share));
  if (t.producer_consumer_pairs > 0)
    t.reasons.push_back(fmt::format(
        "{} producer/consumer thread pair{} (one thread frees {:.0f} % or more of another's "
        "blocks): the backlog between them follows each malloc's speed",
        t.producer_consumer_pairs, t.producer_consumer_pairs == 1 ? "" : "s",
        100 * handoff_pair_share));
  if (t.timed && t.peak_live_spread > max_predictive_peak_spread)
    t.reasons.push_back(fmt::format(
        "the peak live set depends on how the threads interleave: {} to {} ({:.0f} % apart) "
        "between interleavings the recording allows",
        mib(t.peak_live_lowest), mib(t.peak_live_highest), 100 * t.peak_live_spread));
  t.predictive = t.reasons.empty();
  return t;
}

bool within_error_of_one(double ratio, double error_percent) noexcept {
  const double bound = 1 + error_percent / 100;
  return ratio <= bound && ratio >= 1 / bound;
}

bool within_replay_error(double ratio) noexcept {
  return within_error_of_one(ratio, replay_error_percent);
}

std::string render_replay_trust(const replay_trust& t) {
  std::string out = "\nreplay (whether `alloclab replay` can rank mallocs for this program)\n";
  out += fmt::format("  verdict: {}\n", t.predictive ? predictive_text : not_predictive_text);
  for (const std::string& r : t.reasons) out += fmt::format("  because {}\n", r);
  out += fmt::format("  cross-thread frees: {:.2f} % of frees; producer/consumer pairs: {}\n",
                     100 * t.cross_thread_free_share, t.producer_consumer_pairs);
  out += t.timed
             ? fmt::format(
                   "  peak live bytes over the interleavings the recording allows: {} to {} "
                   "({:.1f} % apart)\n",
                   mib(t.peak_live_lowest), mib(t.peak_live_highest), 100 * t.peak_live_spread)
             : "  peak live bytes over interleavings: unknown (no timed events to interleave by)\n";
  out += fmt::format(
      "  a replay ratio within {:.0f} % of 1 is within the replay's error against real runs\n",
      replay_error_percent);
  return out;
}

}  // namespace alloclab::trace
