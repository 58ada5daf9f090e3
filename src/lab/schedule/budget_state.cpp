#include "schedule/budget_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace alloclab::lab {
namespace {

constexpr std::size_t never = std::numeric_limits<std::size_t>::max();

// Processes per side for the interval around `l`'s estimate to clear its nearest boundary, if both
// sides had that many with the variances seen now.
std::size_t needed_per_side(const comparison_look& l, double base_variance,
                            double candidate_variance, double t) {
  const auto& boundaries = l.comparison->boundaries;
  double nearest = std::numeric_limits<double>::infinity();
  for (double b : boundaries) nearest = std::min(nearest, std::abs(std::log(l.ratio.value / b)));
  if (!(nearest > 0) || !std::isfinite(nearest)) return never;
  const double processes = t * t * (base_variance + candidate_variance) / (nearest * nearest);
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

std::vector<comparison_look> budget_state::judge(const std::vector<tracked_comparison>& comparisons,
                                                 std::size_t look) const {
  std::vector<comparison_look> looks;
  for (const tracked_comparison& c : comparisons) {
    const stop_rule rule = rule_.at_look(look).among(c.candidates);
    comparison_look l;
    l.comparison = &c;
    if (unmeasurable(c.base) || unmeasurable(c.candidate)) {
      l.unmeasurable = true;
      l.processes_needed = never;
      looks.push_back(l);
      continue;
    }
    const process_spread base = spread(c.base, c.metric);
    const process_spread candidate = spread(c.candidate, c.metric);
    l.ratio =
        compare_levels(base, pool(c.base, c.metric), candidate, pool(c.candidate, c.metric), rule);
    l.decided = decided(l.ratio, c.boundaries);
    // A cell whose processes gave a figure at or below zero (a NOOP-subtracted heap cost lost in
    // the noise) has no log scale: more of them would not help.
    const bool no_log_scale = (!base.valid() && processes(c.base) > 0) ||
                              (!candidate.valid() && processes(c.candidate) > 0);
    if (no_log_scale) l.processes_needed = never;
    if (!l.decided && base.valid() && candidate.valid()) {
      const moderated_variance b = moderate(base, pool(c.base, c.metric), rule);
      const moderated_variance v = moderate(candidate, pool(c.candidate, c.metric), rule);
      // The next look's confidence: the one these processes would be judged at.
      const double t = t_quantile(rule.at_look(look + 1).confidence(), std::max(l.ratio.df, 1.0));
      l.processes_needed = b.df > 0 && v.df > 0 ? needed_per_side(l, b.variance, v.variance, t) : 0;
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

std::vector<budget_state::growth> budget_state::plan_round(
    const std::vector<comparison_look>& looks, std::size_t look) const {
  if (look >= rule_.looks) return {};
  struct wish {
    std::size_t target = 0;
    std::size_t priority = never;  // the fewest processes an open comparison of the cell needs
    std::string metric;
  };
  std::map<std::size_t, wish> wishes;
  const bool last_round = look + 1 >= rule_.looks;  // its processes get no later look
  const auto want = [&](std::size_t cell, std::size_t needed, const std::string& metric) {
    const std::size_t allowed =
        last_round ? setup_.at(cell).max_processes : processes_after_look(cell, look);
    const std::size_t target = std::min(allowed, std::max(processes(cell) + 1, needed));
    if (target <= processes(cell)) return;
    wish& w = wishes[cell];
    w.target = std::max(w.target, target);
    if (needed < w.priority) {
      w.priority = needed;
      w.metric = metric;
    }
  };
  for (const comparison_look& l : looks) {
    if (l.decided || l.processes_needed == never) continue;
    const tracked_comparison& c = *l.comparison;
    const std::size_t cap =
        std::min(setup_.at(c.base).max_processes, setup_.at(c.candidate).max_processes);
    if (l.processes_needed > cap) continue;  // no look this run allows would decide it
    // Processes where the spread is: a side whose share of the interval's variance is small
    // waits. The share is the moderated variance the interval uses, not the side's own process
    // variance: two processes that agree by chance must not starve a shared baseline.
    const double vb = variance_share(c.base, c.metric);
    const double vc = variance_share(c.candidate, c.metric);
    if (vb >= 0.25 * vc || processes(c.base) < 2) want(c.base, l.processes_needed, c.metric);
    if (vc >= 0.25 * vb || processes(c.candidate) < 2)
      want(c.candidate, l.processes_needed, c.metric);
  }
  std::vector<growth> round;
  std::vector<std::size_t> order;
  for (const auto& [cell, w] : wishes) {
    round.push_back({cell, w.target, repetitions_for(cell, w.metric)});
    order.push_back(w.priority);
  }
  std::vector<std::size_t> index(round.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(),
                   [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  std::vector<growth> sorted;
  for (std::size_t i : index) sorted.push_back(round[i]);
  return sorted;
}

double budget_state::seconds_to_decide(const comparison_look& l) const {
  if (l.decided) return 0;
  if (l.processes_needed == never) return std::numeric_limits<double>::infinity();
  const tracked_comparison& c = *l.comparison;
  double seconds = 0;
  for (const std::size_t cell : {c.base, c.candidate}) {
    const std::size_t more =
        l.processes_needed > processes(cell) ? l.processes_needed - processes(cell) : 0;
    seconds += static_cast<double>(more) * seconds_per_process(cell);
  }
  return seconds;
}

}  // namespace alloclab::lab
