#include "frames/program/stopping.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "stats/stats.hpp"
#include "stats/decision.hpp"

namespace alloclab::program {
namespace {

// Failed runs per combination.
std::vector<std::size_t> failures_by_combination(const std::vector<run_row>& rows,
                                                 std::size_t combinations) {
  std::vector<std::size_t> failed(combinations);
  for (const run_row& row : rows)
    if (!row.record.ok && row.combination < combinations) ++failed[row.combination];
  return failed;
}

std::vector<std::vector<double>> cpu_by_combination(const std::vector<run_row>& rows,
                                                    std::size_t combinations) {
  std::vector<std::vector<double>> cpu(combinations);
  for (const run_row& row : rows)
    if (row.record.ok && row.combination < combinations)
      cpu[row.combination].push_back(row.record.figures.cpu_seconds());
  return cpu;
}

}  // namespace

double cpu_seconds_of(const run_record& r) {
  return r.figures.cpu_seconds();
}

double peak_rss_of(const run_record& r) {
  return static_cast<double>(r.figures.peak_rss_bytes);
}

paired_figures paired_by_round(const std::vector<run_row>& rows, std::size_t a, std::size_t b,
                               double (*figure)(const run_record&)) {
  std::map<std::size_t, std::pair<const run_record*, const run_record*>> rounds;
  for (const run_row& row : rows) {
    if (!row.record.ok) continue;
    if (row.combination == a) rounds[row.round].first = &row.record;
    if (row.combination == b) rounds[row.round].second = &row.record;
  }
  paired_figures out;
  for (const auto& [round, pair] : rounds)
    if (pair.first != nullptr && pair.second != nullptr) {
      out.a.push_back(figure(*pair.first));
      out.b.push_back(figure(*pair.second));
    }
  return out;
}

lab::stop_rule stopping_plan::rule_at(std::size_t look) const {
  lab::stop_rule rule = lab::rule_with_looks(adaptive ? look_rounds.size() : 1);
  return rule.at_look(adaptive ? look : 1);
}

stopping_plan fixed_stopping(std::size_t rounds) {
  stopping_plan plan;
  plan.min_rounds = plan.max_rounds = rounds;
  return plan;
}

stopping_plan adaptive_stopping(std::size_t min_rounds, std::size_t max_rounds,
                                double budget_seconds) {
  stopping_plan plan;
  plan.adaptive = true;
  plan.min_rounds = std::max<std::size_t>(2, min_rounds);
  plan.max_rounds = std::max(plan.min_rounds, max_rounds);
  plan.budget_seconds = budget_seconds;
  for (std::size_t r = plan.min_rounds; r < plan.max_rounds; r += (r + 1) / 2)
    plan.look_rounds.push_back(r);
  plan.look_rounds.push_back(plan.max_rounds);
  return plan;
}

std::vector<double> noise_boundaries(double noise_floor) {
  return {1 / (1 + noise_floor), 1 + noise_floor};
}

std::size_t look_state::open() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(),
                    [](const comparison_look& c) { return !c.decided && !c.undecidable; }));
}

look_state look_at(const std::vector<run_row>& rows, std::size_t combinations, std::size_t baseline,
                   const lab::stop_rule& rule, double noise_floor) {
  look_state look;
  look.look = rule.look;
  const auto cpu = cpu_by_combination(rows, combinations);
  const auto failed = failures_by_combination(rows, combinations);
  // A side whose runs mostly fail cannot be decided by more rounds of the same.
  const auto failing = [&](std::size_t i) { return failed[i] > cpu[i].size(); };
  const std::vector<double> boundaries = noise_boundaries(noise_floor);
  for (std::size_t i = 0; i < combinations; ++i) {
    if (i == baseline) continue;
    comparison_look c;
    c.combination = i;
    c.undecidable = failing(i) || failing(baseline);
    const paired_figures pairs = paired_by_round(rows, i, baseline, cpu_seconds_of);
    c.cpu = lab::compare_paired_runs(pairs.a, pairs.b, rule, cpu_resolution_seconds);
    // The verdict needs the U test too: undecided while its counts cannot reach p < alpha.
    const bool testable = lab::can_reach_significance(cpu[i].size(), cpu[baseline].size());
    c.decided = testable && lab::decided(c.cpu, boundaries);
    look.comparisons.push_back(c);
  }
  return look;
}

round_stopper::round_stopper(stopping_plan plan, std::size_t combinations, std::size_t baseline,
                             double noise_floor, std::vector<std::string> labels)
    : plan_(std::move(plan)),
      combinations_(combinations),
      baseline_(baseline),
      noise_floor_(noise_floor),
      labels_(std::move(labels)) {}

bool round_stopper::finish(std::string reason, const look_state* last) {
  outcome_.stopped_because = std::move(reason);
  outcome_.open.clear();
  outcome_.failing.clear();
  if (last != nullptr)
    for (const comparison_look& c : last->comparisons) {
      if (c.undecidable)
        outcome_.failing.push_back(labels_.at(c.combination));
      else if (!c.decided)
        outcome_.open.push_back(labels_.at(c.combination));
    }
  return false;
}

bool round_stopper::another_round(const std::vector<run_row>& rows, std::size_t completed,
                                  double elapsed_seconds) {
  outcome_.rounds = completed;
  if (!plan_.adaptive)
    return completed < plan_.max_rounds || finish("the fixed number of rounds", nullptr);
  if (completed < plan_.min_rounds) return true;
  // Another round is affordable when the mean round so far fits in what is left.
  const double round_seconds = elapsed_seconds / static_cast<double>(completed);
  const bool budget_spent = elapsed_seconds + round_seconds > plan_.budget_seconds;
  const bool planned_look = std::find(plan_.look_rounds.begin(), plan_.look_rounds.end(),
                                      completed) != plan_.look_rounds.end();
  const bool last_round = completed >= plan_.max_rounds;
  if (!planned_look && !budget_spent && !last_round) return true;
  const look_state look = take_look(rows, budget_spent || last_round);
  if (look.open() == 0)
    return finish(outcome_.decided == outcome_.compared ? "every comparison decided"
                                                        : "no open comparison a round could decide",
                  &look);
  if (last_round) return finish("the maximum number of rounds", &look);
  if (budget_spent) return finish("the budget spent", &look);
  return true;
}

// At most the planned number of looks: the last planned one comes at max_rounds. A look that ends
// the rounds whatever it sees (no time or rounds left, or a signal) may spend all the alpha left.
look_state round_stopper::take_look(const std::vector<run_row>& rows, bool final_look) {
  const std::size_t k = ++outcome_.looks_taken;
  last_rule_ = final_look ? plan_.rule_at(k).spending_the_rest() : plan_.rule_at(k);
  outcome_.confidence = last_rule_.confidence();
  look_state look = look_at(rows, combinations_, baseline_, last_rule_, noise_floor_);
  outcome_.compared = look.comparisons.size();
  outcome_.decided = static_cast<std::size_t>(
      std::count_if(look.comparisons.begin(), look.comparisons.end(),
                    [](const comparison_look& c) { return c.decided && !c.undecidable; }));
  return look;
}

void round_stopper::interrupted(const std::vector<run_row>& rows, std::size_t completed_rounds,
                                int signal) {
  outcome_.rounds = completed_rounds;
  const std::string reason = "interrupted by signal " + std::to_string(signal);
  // Too few rounds for a look, or the last look already ended them: nothing more to judge.
  const bool can_look =
      plan_.adaptive && completed_rounds >= 2 && outcome_.looks_taken < plan_.look_rounds.size();
  if (!can_look) {
    finish(reason, nullptr);
    return;
  }
  const look_state look = take_look(rows, true);
  finish(reason, &look);
}

lab::stop_rule round_stopper::final_rule() const {
  return outcome_.looks_taken > 0 ? last_rule_ : plan_.rule_at(1);
}

}  // namespace alloclab::program
