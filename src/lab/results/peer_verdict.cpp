#include "results/peer_verdict.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "model/peers.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "stats/decision.hpp"
#include "stats/stats.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab {
namespace {

bool timed(const model::cell& cell) {
  return cell.head.status == "ok" && cell.timing;
}

double p50_of(const model::cell& cell) {
  return cell.timing->p50_ns;
}

std::string time_text(double ns) {
  return ns >= 1e4 ? fmt::format("{:.1f} µs", ns / 1e3) : fmt::format("{:.1f} ns", ns);
}

// Why the best alloclab strategy does not beat `peer`, judged on the stop rule's interval.
std::string stop_rule_shortfall(const model::peer_result& peer, double confidence) {
  const std::string ratio =
      ratio_with_interval(peer.ratio, peer.interval->low, peer.interval->high, "x");
  const std::string range = fmt::format("{:.3g} % {}stop-rule interval", 100 * confidence,
                                        *peer.paired_runs > 0 ? "paired " : "");
  if (peer.same_within_margin.value_or(false))
    return fmt::format("{} is the same within {:g} % ({}, {})", peer.strategy,
                       100 * default_equivalence_margin, ratio, range);
  if (peer.interval->high < 1)
    return fmt::format("{} is faster ({}, {})", peer.strategy, ratio, range);
  return fmt::format("{}: open, {}, the {} reaches 1", peer.strategy, ratio, range);
}

// Why the best alloclab strategy (at `best_p50_ns`) does not beat `peer`, or empty when it does.
// `confidence` and `candidates`: of the selection (below).
std::string shortfall(const model::peer_result& peer, double best_p50_ns, double confidence,
                      std::size_t candidates) {
  if (peer.beaten) return {};
  if (peer.paired_runs) return stop_rule_shortfall(peer, confidence);
  if (peer.ratio <= 1.0)
    return fmt::format("{} is as fast or faster ({:.2f}x; {} vs {} at p50)", peer.strategy,
                       peer.ratio, time_text(peer.p50_ns), time_text(best_p50_ns));
  const std::optional<model::interval>& range = peer.interval;
  const std::string level = fmt::format("{:.3g} %", 100 * confidence);
  const std::string interval_part =
      range ? fmt::format(", {} interval {:.2f}–{:.2f}x", level, range->low, range->high)
            : ", no interval";
  const std::string picked =
      candidates > 1
          ? fmt::format("; best of {} alloclab strategies: alpha / {}", candidates, candidates)
          : std::string();
  const double p = *peer.adjusted_p_value;
  if (p < significance_alpha && range)  // the U test alone would have said beaten
    return fmt::format(
        "{} is slower by {:.2f}x, but inside the noise: its {} interval "
        "{:.2f}–{:.2f}x reaches 1 (adjusted p = {:.3g}{})",
        peer.strategy, peer.ratio, level, range->low, range->high, p, picked);
  return fmt::format("{} is slower by {:.2f}x but not significantly (adjusted p = {:.3g}{}{})",
                     peer.strategy, peer.ratio, p, interval_part, picked);
}

// The best of `candidates` alloclab strategies is picked before it meets the peers: each test is
// at alpha / candidates (Bonferroni), so picking the luckiest does not inflate the false "met".
struct selection {
  std::size_t candidates = 1;
  double alpha() const { return significance_alpha / static_cast<double>(candidates); }
  double confidence() const { return 1 - alpha(); }
  // The p-value to hold against significance_alpha: p * candidates (Bonferroni-adjusted).
  double adjusted(double p) const { return std::min(1.0, p * static_cast<double>(candidates)); }
};

model::peer_result peer_result_of(const model::cell& peer, const model::cell& best,
                                  const selection& pick, bool power) {
  const std::vector<double>& ours = best.timing->repetition_medians_ns;
  const std::vector<double>& theirs = peer.timing->repetition_medians_ns;
  const mann_whitney_result test = mann_whitney_u(ours, theirs);
  // The test can reach alpha / candidates at all with these repetitions.
  const bool reachable = power && can_reach_significance(ours.size(), theirs.size(), pick.alpha());
  // peer / best: the speedup of the best alloclab strategy over the peer, with its interval.
  const std::optional<ratio_estimate> estimate =
      estimate_cell_ratio("speedup_p50", peer, best, pick.confidence());
  const bool bounded = estimate && estimate->range.valid();
  model::peer_result r;
  r.strategy = peer.head.strategy;
  r.p50_ns = p50_of(peer);
  r.ratio = estimate ? estimate->value : p50_of(peer) / p50_of(best);
  if (bounded) r.interval = model::interval{estimate->range.low, estimate->range.high};
  r.p_value = test.p_value;
  r.adjusted_p_value.emplace(pick.adjusted(test.p_value));
  // Beaten only outside the noise, by the lab's one rule (U test and interval), at
  // alpha / candidates.
  r.beaten = bounded && judge_difference(pick.adjusted(test.p_value), reachable, estimate->range) ==
                            difference::higher;
  return r;
}

// The stop rule's interval for `peer` under `malloc`, if it tracked one.
const peer_stop_interval* stop_interval_of(const std::vector<peer_stop_interval>& intervals,
                                           const std::string& malloc, const std::string& peer) {
  for (const auto& i : intervals)
    if (i.malloc == malloc && i.peer == peer) return &i;
  return nullptr;
}

void judge_on_stop_rule(model::peer_result& r, const peer_stop_interval& i) {
  r.ratio = i.value;
  r.interval = model::interval{i.low, i.high};
  r.beaten = i.low > 1;
  r.same_within_margin.emplace(inside_margin(i.low, i.high, i.margin));
  r.paired_runs.emplace(i.paired_runs);
}

model::peer_verdict verdict_for(const model::workload& workload, const std::string& malloc,
                                bool power, const std::vector<peer_stop_interval>& stop_rule) {
  const model::cell* best = nullptr;
  selection pick{0};
  std::string tracked_best;  // the stop rule's best, when it tracked this malloc's peers
  for (const auto& i : stop_rule)
    if (i.malloc == malloc) tracked_best = i.best;
  for (const model::cell& c : workload.cells)
    if (c.head.malloc == malloc && side_of(c.head.strategy) == peer_side::alloclab && timed(c)) {
      ++pick.candidates;
      if (!tracked_best.empty()) {
        if (c.head.strategy == tracked_best) best = &c;
      } else if (best == nullptr || p50_of(c) < p50_of(*best)) {
        best = &c;
      }
    }
  pick.candidates = std::max<std::size_t>(1, pick.candidates);
  model::peer_verdict verdict;
  verdict.malloc = malloc;
  verdict.verdict = "not_judged";
  verdict.candidates.emplace(pick.candidates);
  verdict.confidence.emplace(pick.confidence());
  if (best != nullptr) verdict.best_alloclab = model::best_cell{best->head.strategy, p50_of(*best)};
  for (const model::cell& c : workload.cells) {
    if (c.head.malloc != malloc || side_of(c.head.strategy) != peer_side::peer) continue;
    if (!timed(c)) {
      if (c.head.status != "not_applicable") verdict.unmeasured_peers.push_back(c.head.strategy);
      continue;
    }
    if (best == nullptr) continue;
    verdict.peers.push_back(peer_result_of(c, *best, pick, power));
    if (const auto* i = stop_interval_of(stop_rule, malloc, c.head.strategy))
      judge_on_stop_rule(verdict.peers.back(), *i);
  }
  if (best == nullptr) {
    verdict.reason = "no alloclab strategy has a number here";
    return verdict;
  }
  if (verdict.peers.empty()) {
    verdict.reason = "no peer strategy has a number here";
    return verdict;
  }
  std::string why;
  for (const auto& p : verdict.peers)
    if (const std::string s = shortfall(p, p50_of(*best), pick.confidence(), pick.candidates);
        !s.empty())
      why += (why.empty() ? "" : "; ") + s;
  const bool on_stop_rule = std::all_of(verdict.peers.begin(), verdict.peers.end(),
                                        [](const auto& p) { return p.paired_runs.has_value(); });
  if (!power && !on_stop_rule && !why.empty())
    why = "too few repetitions for the U test to reach significance; " + why;
  verdict.verdict = why.empty() ? "met" : "missed";
  if (!why.empty()) verdict.reason = why;
  return verdict;
}

}  // namespace

std::vector<model::peer_verdict> peer_verdicts(const model::workload& workload, bool power,
                                               const std::vector<peer_stop_interval>& stop_rule) {
  std::vector<std::string> mallocs;
  for (const model::cell& c : workload.cells) {
    const std::string& m = c.head.malloc;
    if (std::find(mallocs.begin(), mallocs.end(), m) == mallocs.end()) mallocs.push_back(m);
  }
  std::vector<model::peer_verdict> verdicts;
  for (const auto& m : mallocs) verdicts.push_back(verdict_for(workload, m, power, stop_rule));
  return verdicts;
}

}  // namespace alloclab::lab
