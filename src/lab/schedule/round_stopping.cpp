#include "schedule/round_stopping.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "plan/budget.hpp"
#include "schedule/budget_state.hpp"
#include "stats/decision.hpp"

namespace alloclab::lab {
namespace {

// Successful readings and failed runs per cell.
struct cell_runs {
  std::vector<std::size_t> ok, failed;
};

cell_runs runs_by_cell(const std::vector<round_reading>& readings, std::size_t cells) {
  cell_runs out{std::vector<std::size_t>(cells), std::vector<std::size_t>(cells)};
  for (const round_reading& r : readings)
    if (r.cell < cells) ++(r.ok ? out.ok : out.failed)[r.cell];
  return out;
}

// The metric the rounds' one figure goes by in the budget's state.
constexpr const char* round_figure = "figure";

budget_state rounds_state(const std::vector<round_reading>& readings, std::size_t cells,
                          const stop_rule& rule) {
  std::map<std::size_t, std::vector<const round_reading*>> rounds;
  for (const round_reading& r : readings)
    if (r.ok && r.cell < cells) rounds[r.round].push_back(&r);
  budget_state state(std::vector<budget_cell>(cells), rule);
  for (const auto& [round, ran] : rounds) {
    std::vector<std::size_t> ring;
    std::vector<std::map<std::string, std::vector<double>>> figures;
    for (const round_reading* r : ran) {
      ring.push_back(r->cell);
      figures.push_back({{round_figure, {r->value}}});
      state.add_process(r->cell, figures.back(), 0);
    }
    state.add_ring(ring, figures);
  }
  return state;
}

// base / candidate is the cell's figure over the baseline's.
std::vector<tracked_comparison> against_baseline(const round_judged& judged) {
  std::vector<tracked_comparison> out;
  for (std::size_t i = 0; i < judged.cells; ++i) {
    if (i == judged.baseline) continue;
    tracked_comparison c;
    c.id = judged.labels.at(i);
    c.kind = "vs_baseline";
    c.base = i;
    c.candidate = judged.baseline;
    c.metric = round_figure;
    c.boundaries = noise_boundaries(judged.noise_floor);
    c.paired_only = true;
    c.resolution = judged.resolution;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<round_reading> round_readings(const round_records& ran, const std::string& figure) {
  std::vector<round_reading> out;
  for (std::size_t i = 0; i < ran.records.size() && i < ran.ran.size(); ++i) {
    round_reading r{ran.ran[i].part, ran.ran[i].cell, false, 0};
    const std::vector<figure_readings> processes = ran.records[i].figures.readings();
    if (ran.records[i].status == "ok" && processes.size() == 1) {
      const auto found = processes.front().find(figure);
      if (found != processes.front().end() && found->second.size() == 1) {
        r.ok = true;
        r.value = found->second.front();
      }
    }
    out.push_back(r);
  }
  return out;
}

stop_rule stopping_plan::rule_at(std::size_t look) const {
  stop_rule rule = rule_with_looks(adaptive ? look_rounds.size() : 1);
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
  // The budget's looks: the first round's count grown by half at each look, up to the most.
  const std::size_t looks = looks_to_reach(plan.min_rounds, plan.max_rounds);
  for (std::size_t k = 0; k < looks; ++k)
    plan.look_rounds.push_back(processes_after(plan.min_rounds, plan.max_rounds, k));
  return plan;
}

std::vector<double> noise_boundaries(double noise_floor) {
  return {1 / (1 + noise_floor), 1 + noise_floor};
}

std::size_t round_look::open() const {
  return static_cast<std::size_t>(
      std::count_if(comparisons.begin(), comparisons.end(),
                    [](const round_comparison& c) { return !c.decided && !c.undecidable; }));
}

round_look judge_rounds(const std::vector<round_reading>& readings, const round_judged& judged,
                        const stop_rule& rule) {
  const std::vector<tracked_comparison> comparisons = against_baseline(judged);
  const budget_state state = rounds_state(readings, judged.cells, rule);
  const cell_runs runs = runs_by_cell(readings, judged.cells);
  // A side whose runs mostly fail cannot be decided by more rounds of the same. (Not the state's
  // unmeasurable cell, which one failed process makes for good: a cell here stays judged while
  // most of its runs succeed, its failed rounds left out of its ring runs.)
  const auto failing = [&](std::size_t i) { return runs.failed[i] > runs.ok[i]; };
  round_look look;
  look.look = rule.look;
  for (const comparison_look& l : state.judge(comparisons, rule.look, rule.last_look)) {
    round_comparison c;
    c.cell = l.comparison->base;
    c.ratio = l.ratio;
    c.undecidable = failing(c.cell) || failing(judged.baseline);
    // The verdict needs the U test too: undecided while its counts cannot reach p < alpha.
    c.decided = l.decided &&
                can_reach_significance(state.processes(c.cell), state.processes(judged.baseline));
    look.comparisons.push_back(c);
  }
  return look;
}

round_stopper::round_stopper(stopping_plan plan, round_judged judged)
    : plan_(std::move(plan)), judged_(std::move(judged)) {}

bool round_stopper::finish(std::string reason, const round_look* last) {
  outcome_.stopped_because = std::move(reason);
  outcome_.open.clear();
  outcome_.failing.clear();
  if (last != nullptr)
    for (const round_comparison& c : last->comparisons) {
      if (c.undecidable)
        outcome_.failing.push_back(judged_.labels.at(c.cell));
      else if (!c.decided)
        outcome_.open.push_back(judged_.labels.at(c.cell));
    }
  return false;
}

bool round_stopper::another_round(const std::vector<round_reading>& readings, std::size_t completed,
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
  const round_look look = take_look(readings, budget_spent || last_round);
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
round_look round_stopper::take_look(const std::vector<round_reading>& readings, bool final_look) {
  ++outcome_.looks_taken;
  outcome_.last_look_final = final_look;
  const stop_rule rule = lab::final_rule(plan_, outcome_);
  outcome_.confidence = rule.confidence();
  round_look look = judge_rounds(readings, judged_, rule);
  outcome_.compared = look.comparisons.size();
  outcome_.decided = static_cast<std::size_t>(
      std::count_if(look.comparisons.begin(), look.comparisons.end(),
                    [](const round_comparison& c) { return c.decided && !c.undecidable; }));
  return look;
}

void round_stopper::interrupted(const std::vector<round_reading>& readings,
                                std::size_t completed_rounds, int signal) {
  outcome_.rounds = completed_rounds;
  const std::string reason = "interrupted by signal " + std::to_string(signal);
  // Too few rounds for a look, or the last look already ended them: nothing more to judge.
  const bool can_look =
      plan_.adaptive && completed_rounds >= 2 && outcome_.looks_taken < plan_.look_rounds.size();
  if (!can_look) {
    finish(reason, nullptr);
    return;
  }
  const round_look look = take_look(readings, true);
  finish(reason, &look);
}

stop_rule final_rule(const stopping_plan& plan, const stopping_outcome& outcome) {
  if (outcome.looks_taken == 0) return plan.rule_at(1);
  const stop_rule last = plan.rule_at(outcome.looks_taken);
  return outcome.last_look_final ? last.spending_the_rest() : last;
}

stop_rule round_stopper::final_rule() const {
  return lab::final_rule(plan_, outcome_);
}

}  // namespace alloclab::lab
