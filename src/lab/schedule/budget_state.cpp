#include "schedule/budget_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/decision.hpp"

namespace alloclab::lab {
namespace {

constexpr std::size_t never = std::numeric_limits<std::size_t>::max();

// Processes (per side, or ring runs of a pair) for the interval around `l`'s estimate to clear
// its nearest boundary, or to fit inside its equivalence margin, whichever comes first, with
// `variance` the variance one more process of each side adds to the log ratio.
std::size_t processes_to_decide(const comparison_look& l, double variance, double t) {
  double nearest = std::numeric_limits<double>::infinity();
  for (double b : l.comparison->boundaries)
    nearest = std::min(nearest, std::abs(std::log(l.ratio.value / b)));
  if (!(nearest > 0) || !std::isfinite(nearest)) nearest = 0;
  if (l.comparison->margin > 0)  // the half-width that would fit inside the margin
    nearest =
        std::max(nearest, std::log1p(l.comparison->margin) - std::abs(std::log(l.ratio.value)));
  if (!(nearest > 0)) return never;
  const double processes = t * t * variance / (nearest * nearest);
  if (!std::isfinite(processes) || processes > 1e6) return never;
  return static_cast<std::size_t>(std::ceil(processes));
}

}  // namespace

budget_state::budget_state(std::vector<budget_cell> cells, stop_rule rule)
    : setup_(std::move(cells)), cells_(setup_.size()), rule_(rule) {}

void budget_state::replan(std::size_t max_processes) {
  std::size_t looks = 1;
  for (budget_cell& s : setup_) {
    if (s.max_processes > s.first_processes)
      s.max_processes = std::max(s.first_processes + 1, max_processes);
    looks = std::max(looks, looks_to_reach(s.first_processes, s.max_processes));
  }
  rule_.looks = rule_.look = looks;
}

void budget_state::add_process(std::size_t cell,
                               const std::map<std::string, std::vector<double>>& figures,
                               double seconds) {
  cell_state& c = cells_.at(cell);
  ++c.processes;
  c.seconds += seconds;
  for (const auto& [metric, values] : figures) c.figures[metric].push_back(values);
}

double budget_state::seconds_per_process(std::size_t cell) const {
  const cell_state& c = cells_.at(cell);
  return c.processes == 0 ? 0 : c.seconds / static_cast<double>(c.processes);
}

process_spread budget_state::spread(std::size_t cell, const std::string& metric) const {
  const auto& figures = cells_.at(cell).figures;
  const auto found = figures.find(metric);
  return found == figures.end() ? process_spread{} : spread_of(found->second);
}

pooled_between budget_state::pool(std::size_t cell, const std::string& metric) const {
  // Leave-one-out: the prior is what the group's other cells say; the cell's own spread enters
  // once, through its own degrees of freedom (sequential.hpp, moderate).
  std::vector<process_spread> group;
  for (std::size_t i = 0; i < setup_.size(); ++i)
    if (i != cell && setup_[i].group == setup_[cell].group) group.push_back(spread(i, metric));
  return pool_between(group);
}

void budget_state::add_ring(
    const std::vector<std::size_t>& cells,
    const std::vector<std::map<std::string, std::vector<double>>>& figures) {
  for (std::size_t i = 0; i < cells.size(); ++i)
    for (std::size_t j = 0; j < cells.size(); ++j) {
      if (cells[i] >= cells[j]) continue;
      auto& by_metric = paired_[{cells[i], cells[j]}];
      for (const auto& [metric, first] : figures[i]) {
        const auto other = figures[j].find(metric);
        if (other == figures[j].end()) continue;
        paired_runs& runs = by_metric[metric];
        runs.first.push_back(first);
        runs.second.push_back(other->second);
        std::vector<double> ratios;
        const std::size_t n = std::min(first.size(), other->second.size());
        for (std::size_t k = 0; k < n; ++k)
          if (first[k] > 0 && other->second[k] > 0) ratios.push_back(first[k] / other->second[k]);
        if (!ratios.empty()) runs.ratios.push_back(std::move(ratios));
      }
    }
}

figures_by_process budget_state::paired_ratios(std::size_t base, std::size_t candidate,
                                               const std::string& metric) const {
  const bool flipped = base > candidate;
  const auto found =
      paired_.find(flipped ? paired_key{candidate, base} : paired_key{base, candidate});
  if (found == paired_.end()) return {};
  const auto by_metric = found->second.find(metric);
  if (by_metric == found->second.end()) return {};
  figures_by_process runs = by_metric->second.ratios;
  if (flipped)
    for (auto& run : runs)
      for (double& r : run) r = 1 / r;
  return runs;
}

pooled_between budget_state::paired_pool(const paired_key& left_out,
                                         const std::string& metric) const {
  // Leave-one-out, as for cells: what the group's other paired comparisons say.
  const std::size_t group = setup_.at(left_out.first).group;
  std::vector<process_spread> others;
  for (const auto& [key, by_metric] : paired_) {
    if (key == left_out || setup_.at(key.first).group != group) continue;
    const auto found = by_metric.find(metric);
    if (found != by_metric.end()) others.push_back(paired_spread(found->second.ratios));
  }
  return pool_between(others);
}

sequential_ratio budget_state::judge_pair(const tracked_comparison& c, const stop_rule& rule,
                                          std::size_t& runs, double& variance) const {
  const process_spread spread = paired_spread(paired_ratios(c.base, c.candidate, c.metric));
  runs = spread.processes;
  if (!spread.valid()) return {};
  const paired_key key{std::min(c.base, c.candidate), std::max(c.base, c.candidate)};
  const pooled_between pool = c.paired_only ? pooled_between{} : paired_pool(key, c.metric);
  variance = moderate(spread, pool, rule).variance;
  const sequential_ratio ratio = compare_paired(spread, pool, rule);
  if (!(c.resolution > 0)) return ratio;
  // The sides' levels over the ring runs both took part in (the floor is symmetric in them).
  const paired_runs& paired = paired_.at(key).at(c.metric);
  return with_resolution_floor(ratio, spread_of(paired.first).level, spread_of(paired.second).level,
                               runs, rule, c.resolution);
}

std::vector<comparison_look> budget_state::judge(const std::vector<tracked_comparison>& comparisons,
                                                 std::size_t look, bool last) const {
  const stop_rule at_look = last ? rule_.at_look(look).spending_the_rest() : rule_.at_look(look);
  std::vector<comparison_look> looks;
  for (const tracked_comparison& c : comparisons) {
    const stop_rule rule = at_look.among(c.candidates);
    comparison_look l;
    l.comparison = &c;
    if (unmeasurable(c.base) || unmeasurable(c.candidate)) {
      l.unmeasurable = true;
      l.processes_needed = never;
      looks.push_back(l);
      continue;
    }
    // The next look's confidence: the one more processes would be judged at.
    const auto next_t = [&](double df) {
      return t_quantile(rule_.at_look(look + 1).among(c.candidates).confidence(),
                        std::max(df, 1.0));
    };
    std::size_t runs = 0;
    double pair_variance = 0;
    const sequential_ratio paired = judge_pair(c, rule, runs, pair_variance);
    if (paired.bounded() || c.paired_only) {
      l.ratio = paired;
      l.paired_runs = runs;
      l.decided =
          decided(l.ratio, c.boundaries) || inside_margin(l.ratio.low, l.ratio.high, c.margin);
      if (!l.decided)
        l.processes_needed = processes_to_decide(l, pair_variance, next_t(l.ratio.df));
      looks.push_back(l);
      continue;
    }
    const process_spread base = spread(c.base, c.metric);
    const process_spread candidate = spread(c.candidate, c.metric);
    l.ratio =
        compare_levels(base, pool(c.base, c.metric), candidate, pool(c.candidate, c.metric), rule);
    l.decided =
        decided(l.ratio, c.boundaries) || inside_margin(l.ratio.low, l.ratio.high, c.margin);
    // A cell whose processes gave a figure at or below zero (a NOOP-subtracted heap cost lost in
    // the noise) has no log scale: more of them would not help.
    const bool no_log_scale = (!base.valid() && processes(c.base) > 0) ||
                              (!candidate.valid() && processes(c.candidate) > 0);
    if (no_log_scale) l.processes_needed = never;
    if (!l.decided && base.valid() && candidate.valid()) {
      const moderated_variance b = moderate(base, pool(c.base, c.metric), rule);
      const moderated_variance v = moderate(candidate, pool(c.candidate, c.metric), rule);
      l.processes_needed = b.df > 0 && v.df > 0
                               ? processes_to_decide(l, b.variance + v.variance, next_t(l.ratio.df))
                               : 0;
    }
    looks.push_back(l);
  }
  return looks;
}

double budget_state::variance_share(std::size_t cell, const std::string& metric) const {
  const process_spread p = spread(cell, metric);
  const moderated_variance m = moderate(p, pool(cell, metric), rule_);
  const double variance = m.df > 0 ? m.variance : p.process_variance;
  return variance / static_cast<double>(std::max<std::size_t>(1, p.processes));
}

std::size_t budget_state::processes_after_look(std::size_t cell, std::size_t look) const {
  const budget_cell& s = setup_.at(cell);
  return processes_after(s.first_processes, s.max_processes, look);
}

std::size_t budget_state::repetitions_for(std::size_t cell, const std::string& metric) const {
  const budget_cell& s = setup_.at(cell);
  const process_spread p = spread(cell, metric);
  if (p.processes < 2 || p.between >= p.within_part) return s.repetitions;
  // The spread within a process dominates: longer processes, not more of them.
  const std::size_t now = p.repetitions / p.processes;
  return std::min(s.max_repetitions, std::max(s.repetitions, 2 * now));
}

std::size_t budget_state::allowed_after(std::size_t cell, std::size_t look) const {
  const bool last_round = look + 1 >= rule_.looks;  // its processes get no later look
  return last_round ? setup_.at(cell).max_processes : processes_after_look(cell, look);
}

bool budget_state::within_cap(const comparison_look& l, std::size_t most) const {
  const tracked_comparison& c = *l.comparison;
  const std::size_t cap =
      most > 0 ? most
               : std::min(setup_.at(c.base).max_processes, setup_.at(c.candidate).max_processes);
  return l.processes_needed <= cap;
}

std::vector<budget_state::growth> budget_state::plan_round(
    const std::vector<comparison_look>& looks, std::size_t look) const {
  if (look >= rule_.looks) return {};
  struct wish {
    std::size_t target = 0;
    std::size_t priority = never;  // the fewest processes an open comparison of the cell needs
    std::string metric;
  };
  std::map<std::size_t, wish> wishes;
  const auto want = [&](std::size_t cell, std::size_t target, std::size_t needed,
                        const std::string& metric) {
    if (target <= processes(cell)) return;
    wish& w = wishes[cell];
    w.target = std::max(w.target, target);
    if (needed < w.priority) {
      w.priority = needed;
      w.metric = metric;
    }
  };
  const auto room = [&](std::size_t cell) {
    const std::size_t allowed = allowed_after(cell, look);
    return allowed > processes(cell) ? allowed - processes(cell) : 0;
  };
  for (const comparison_look& l : looks) {
    if (l.decided || l.processes_needed == never) continue;
    if (!within_cap(l)) continue;  // no look this run allows would decide it
    const tracked_comparison& c = *l.comparison;
    if (l.paired_runs > 0) {
      // A ring run counts only when both sides run in it: both grow by the same runs, as many
      // as the side with less room this round may take.
      const std::size_t wanted =
          l.processes_needed > l.paired_runs ? l.processes_needed - l.paired_runs : 1;
      const std::size_t more = std::min({wanted, room(c.base), room(c.candidate)});
      if (more == 0) continue;
      want(c.base, processes(c.base) + more, l.processes_needed, c.metric);
      want(c.candidate, processes(c.candidate) + more, l.processes_needed, c.metric);
      continue;
    }
    // Processes where the spread is: a side whose share of the interval's variance is small
    // waits. The share is the moderated variance the interval uses, not the side's own process
    // variance: two processes that agree by chance must not starve a shared baseline.
    const double vb = variance_share(c.base, c.metric);
    const double vc = variance_share(c.candidate, c.metric);
    for (const auto& [cell, grows] :
         {std::pair{c.base, vb >= 0.25 * vc}, std::pair{c.candidate, vc >= 0.25 * vb}})
      if (grows || processes(cell) < 2)
        want(cell,
             std::min(allowed_after(cell, look), std::max(processes(cell) + 1, l.processes_needed)),
             l.processes_needed, c.metric);
  }
  std::vector<std::pair<std::size_t, growth>> round;
  for (const auto& [cell, w] : wishes)
    round.push_back({w.priority, {cell, w.target, repetitions_for(cell, w.metric)}});
  std::stable_sort(round.begin(), round.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<growth> sorted;
  for (const auto& [priority, g] : round) sorted.push_back(g);
  return sorted;
}

std::vector<std::size_t> budget_state::helpful(const std::vector<comparison_look>& looks,
                                               const std::vector<std::size_t>& pass) const {
  const auto in_pass = [&](std::size_t cell) {
    return std::find(pass.begin(), pass.end(), cell) != pass.end();
  };
  std::vector<bool> helps(cells_.size(), false);
  for (const comparison_look& l : looks) {
    if (l.decided || l.processes_needed == never || !within_cap(l)) continue;
    const tracked_comparison& c = *l.comparison;
    const bool both = in_pass(c.base) && in_pass(c.candidate);
    for (const std::size_t cell : {c.base, c.candidate})
      if (in_pass(cell) && (l.paired_runs == 0 || both)) helps.at(cell) = true;
  }
  std::vector<std::size_t> out;
  for (const std::size_t cell : pass)
    if (helps.at(cell)) out.push_back(cell);
  return out;
}

double budget_state::seconds_to_decide(const comparison_look& l) const {
  if (l.decided) return 0;
  if (l.processes_needed == never) return std::numeric_limits<double>::infinity();
  const tracked_comparison& c = *l.comparison;
  double seconds = 0;
  for (const std::size_t cell : {c.base, c.candidate}) {
    // Paired: more ring runs, a process of each side in each.
    const std::size_t have = l.paired_runs > 0 ? l.paired_runs : processes(cell);
    const std::size_t more = l.processes_needed > have ? l.processes_needed - have : 0;
    seconds += static_cast<double>(more) * seconds_per_process(cell);
  }
  return seconds;
}

}  // namespace alloclab::lab
