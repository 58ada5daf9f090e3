#include "schedule/budget_run.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "lockstep/ring.hpp"
#include "process/pausable_workers.hpp"
#include "plan/frame_planner.hpp"
#include "plan/budget.hpp"
#include "plan/budget_reserve.hpp"
#include "claims/embedded_files.hpp"
#include "schedule/budget_account.hpp"
#include "schedule/budget_state.hpp"
#include "schedule/tracked_comparisons.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

constexpr double closing_seconds = results_reserve_seconds;  // plan/budget_reserve.hpp

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(std::max(0.0, seconds) + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// The run's processes so far, its state of the stop rule, and the records in task order.
class budget_runner {
 public:
  budget_runner(run_plan& plan, steady::time_point started, const schedule_progress_fn& progress,
                process::pausable_workers* beside)
      : budget_runner(plan, budget_cells(plan), started, progress) {
    beside_ = beside;
  }
  budget_runner(run_plan& plan, const std::vector<budget_cell>& cells, steady::time_point started,
                const schedule_progress_fn& progress)
      : plan_(plan),
        started_(started),
        progress_(progress),
        state_(cells, budget_rule(cells)),
        attempts_(plan.cells.size(), 0),
        planned_(planned_comparisons(plan, json::parse(embedded::seed_claims_json))) {}

  void run(executor_set& executors, const task& t, std::size_t round) {
    const double elapsed = seconds_since(started_);
    progress_({ran_.size(), 0, -1,
               fmt::format("round {}, {} of {} budget: {}", round, clock_text(elapsed),
                           clock_text(plan_.sizes.budget_seconds), describe_task(plan_, t))});
    const auto before = steady::now();
    measurement_record r = executors.run(plan_, t);
    const double seconds = seconds_since(before);
    const auto processes = figures_of(r);
    if (processes.empty()) state_.mark_unmeasurable(t.cell);
    for (const auto& figures : processes)
      state_.add_process(t.cell, figures, seconds / static_cast<double>(processes.size()));
    records_.push_back(std::move(r));
    ran_.push_back(t);
    ++attempts_[t.cell];
  }

  // The tasks of one group as a lockstep ring: each its own process, their slices interleaved.
  void run_ring(executor_set& executors, const std::vector<task>& ring, std::size_t round) {
    progress_(
        {ran_.size(), 0, -1,
         fmt::format("round {}, {} of {} budget: {} cells of {} in lockstep", round,
                     clock_text(seconds_since(started_)), clock_text(plan_.sizes.budget_seconds),
                     ring.size(), plan_.cells.at(ring.front().cell).workload)});
    std::vector<measurement_record> records(ring.size());
    std::vector<std::function<void()>> members;
    for (std::size_t i = 0; i < ring.size(); ++i)
      members.emplace_back([&, i] { records[i] = executors.run(plan_, ring[i]); });
    const auto before = steady::now();
    lockstep::run_ring(members, {lockstep::ring_cpu(), plan_.sizes.seed + ran_.size()});
    const double seconds = seconds_since(before) / static_cast<double>(ring.size());
    std::vector<std::size_t> cells;
    std::vector<figure_readings> paired;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto processes = figures_of(records[i]);
      if (processes.empty()) state_.mark_unmeasurable(ring[i].cell);
      for (const auto& figures : processes) state_.add_process(ring[i].cell, figures, seconds);
      if (processes.size() == 1) {
        cells.push_back(ring[i].cell);
        paired.push_back(processes.front());
      }
      records_.push_back(std::move(records[i]));
      ran_.push_back(ring[i]);
      ++attempts_[ring[i].cell];
    }
    state_.add_ring(cells, paired);
  }

  bool in_lockstep(std::size_t cell) const {
    return plan_.lockstep && planner_of(plan_.cells.at(cell).frame).lockstep;
  }

  // Runs `tasks`: the tasks of one lockstep group together, as one ring; the others one by one.
  void run_all(executor_set& executors, const std::vector<task>& tasks, std::size_t round) {
    std::vector<std::vector<task>> rings;
    std::map<std::size_t, std::size_t> ring_of_group;
    for (const task& t : tasks) {
      if (!in_lockstep(t.cell)) {
        rings.push_back({t});
        continue;
      }
      const auto [at, fresh] = ring_of_group.emplace(state_.setup(t.cell).group, rings.size());
      if (fresh) rings.emplace_back();
      rings[at->second].push_back(t);
    }
    for (const auto& ring : rings) {
      const process::pause_guard quiet(uses_every_cpu(plan_, ring) ? beside_ : nullptr);
      if (ring.size() == 1)
        run(executors, ring.front(), round);
      else
        run_ring(executors, ring, round);
    }
  }

  std::vector<comparison_look> look(std::size_t look_number) {
    comparisons_ = planned_;
    for (auto& p : peer_comparisons(plan_, state_)) comparisons_.push_back(std::move(p));
    std::vector<comparison_look> looks = state_.judge(comparisons_, look_number);
    round_account a{look_number, ran_.size() - counted_, seconds_since(started_), 0, 0};
    counted_ = ran_.size();
    count_verdicts(a, looks);
    rounds_.push_back(a);
    return looks;
  }

  // Whether one more process of `cell` with `repetitions` still fits in the budget, at the
  // seconds its processes took so far.
  bool fits(std::size_t cell, std::size_t repetitions, double planned = 0) const {
    return seconds_since(started_) + planned + estimate(cell, repetitions) + closing_seconds <=
           plan_.sizes.budget_seconds;
  }

  // Seconds one more process of `cell` with `repetitions` should take, at its processes so far.
  double estimate(std::size_t cell, std::size_t repetitions) const {
    return state_.seconds_per_process(cell) * static_cast<double>(repetitions) /
           static_cast<double>(state_.setup(cell).repetitions);
  }

  // Fixes the rest of the run from what the first round cost (`first_round_seconds`), before
  // the first look: the most processes a cell may have and the looks (plan/budget.hpp).
  void plan_rest(double first_round_seconds) {
    rest_.first_round_seconds = first_round_seconds;
    rest_.seconds_left = seconds_left();
    rest_.rest = plan_after_first_round(first_round_seconds, rest_.seconds_left,
                                        budget_cell{}.first_processes);
    state_.replan(rest_.rest.max_processes);
  }

  // None once the run is past the budget less the closing seconds (a budget smaller than those
  // is spent before the first round ends).
  double seconds_left() const {
    return std::max(0.0, plan_.sizes.budget_seconds - closing_seconds - seconds_since(started_));
  }

  // The last round, once its cells have what their comparisons asked for: what is left of the
  // budget, one more process per cell and pass, up to each cell's most (no look follows, so the
  // error rate does not change; the final look has more processes to stand on). Only cells whose
  // process still helps an open comparison of `looks` that its cells' most can decide: a paired
  // one gains nothing from a side whose other side has reached its most.
  void top_up(executor_set& executors, const std::vector<budget_state::growth>& round,
              const std::vector<comparison_look>& looks, std::size_t round_number) {
    for (;;) {
      std::vector<std::size_t> open;
      for (const auto& g : round)
        if (attempts_[g.cell] < state_.setup(g.cell).max_processes && !state_.unmeasurable(g.cell))
          open.push_back(g.cell);
      const std::vector<std::size_t> helpful = state_.helpful(looks, open);
      std::vector<task> pass;
      double planned = 0;
      for (const auto& g : round) {
        if (std::find(helpful.begin(), helpful.end(), g.cell) == helpful.end() ||
            !fits(g.cell, g.repetitions, planned))
          continue;
        planned += estimate(g.cell, g.repetitions);
        const std::size_t part = attempts_[g.cell];
        pass.push_back({g.cell, part, g.repetitions, plan_.sizes.seed + part});
      }
      if (pass.empty()) return;
      run_all(executors, pass, round_number);
    }
  }

  // Why a run that reached its last look with comparisons open stopped there.
  std::string why_last_look(const std::vector<comparison_look>& looks) const {
    const double left = seconds_left();
    std::size_t open = 0, affordable = 0;
    for (const auto& l : looks) {
      if (l.decided || l.unmeasurable) continue;
      ++open;
      affordable += state_.within_cap(l) && state_.seconds_to_decide(l) <= left;
    }
    if (affordable == 0)
      return fmt::format(
          "the stop rule's last look ({} planned after the first round); no open comparison "
          "could be decided with the {:.0f} s left",
          state_.rule().looks, std::max(0.0, left));
    return fmt::format(
        "the stop rule's last look ({} planned after the first round) with {:.0f} s left: {} of "
        "the {} open comparisons might have been decided with it",
        state_.rule().looks, std::max(0.0, left), affordable, open);
  }

  // One round: each cell's new processes, one per pass, most promising cells first. False when
  // the budget ran out before the round's end.
  bool grow(executor_set& executors, const std::vector<budget_state::growth>& round,
            std::size_t round_number) {
    for (;;) {  // passes
      std::vector<task> pass;
      bool spent = false;
      double planned = 0;  // seconds of the tasks this pass holds so far
      for (const auto& g : round) {
        if (attempts_[g.cell] >= g.target_processes || state_.unmeasurable(g.cell)) continue;
        if (!fits(g.cell, g.repetitions, planned)) {
          spent = true;
          break;
        }
        planned += estimate(g.cell, g.repetitions);
        const std::size_t part = attempts_[g.cell];
        pass.push_back({g.cell, part, g.repetitions, plan_.sizes.seed + part});
      }
      run_all(executors, pass, round_number);
      if (spent) return false;
      if (pass.empty()) return true;
    }
  }

  // Ends the run. Its last look is judged again, spending the alpha the looks planned after it
  // would have had (they will not come; stop_rule::spending_the_rest), as `try` and `compare
  // --paired` do: no process has run since, so only the intervals' confidence changes.
  // `stopped` empty: the rule's last look, explained by why_last_look.
  run_records finish(executor_set& executors, std::string stopped) {
    const std::size_t last = rounds_.back().look;
    const std::vector<comparison_look> looks = state_.judge(comparisons_, last, true);
    rounds_.back().decided = rounds_.back().open = 0;
    count_verdicts(rounds_.back(), looks);
    if (stopped.empty()) stopped = why_last_look(looks);
    run_records out;
    out.frame_facts = executors.facts();
    out.duration_seconds = seconds_since(started_);
    const account_input in{
        plan_, state_, looks, rounds_, records_, ran_, "budget", stopped, out.duration_seconds,
        &rest_};
    out.budget = make_account(in);
    out.records = std::move(records_);
    plan_.schedule = ran_;
    return out;
  }

  const budget_state& state() const { return state_; }

 private:
  static void count_verdicts(round_account& a, const std::vector<comparison_look>& looks) {
    for (const auto& l : looks) {
      a.decided += l.decided;
      a.open += !l.decided && !l.unmeasurable;
    }
  }

  run_plan& plan_;
  steady::time_point started_;
  const schedule_progress_fn& progress_;
  budget_state state_;
  std::vector<std::size_t> attempts_;
  std::vector<tracked_comparison> planned_;
  std::vector<tracked_comparison> comparisons_;  // the last look's (looks point into it)
  std::vector<measurement_record> records_;
  std::vector<task> ran_;
  std::vector<round_account> rounds_;
  std::size_t counted_ = 0;
  rest_plan rest_;
  process::pausable_workers* beside_ = nullptr;  // work beside the timing (the simulation)
};

}  // namespace

run_records run_budgeted(run_plan& plan, steady::time_point started,
                         const executor_factory& make_executor,
                         const schedule_progress_fn& progress, process::pausable_workers* beside) {
  budget_runner runner(plan, started, progress, beside);
  executor_set executors(plan, make_executor, progress);
  // Every cell's first process runs whatever the budget; its later first-round processes (a
  // second one, a served variant's other servers) only while the budget lasts.
  const std::vector<task> first = plan.schedule;
  std::size_t cut = 0;
  const steady::time_point first_round_started = steady::now();
  // In passes (one process of each cell), each pass's tasks of a group as one ring.
  for (std::size_t begin = 0; begin < first.size();) {
    std::size_t end = begin;
    while (end < first.size() && first[end].part == first[begin].part) ++end;
    std::vector<task> pass;
    double planned = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const task& t = first[i];
      if (t.part == 0 || runner.fits(t.cell, t.repetitions, planned)) {
        pass.push_back(t);
        planned += t.part == 0 ? 0 : runner.estimate(t.cell, t.repetitions);
      } else {
        ++cut;
      }
    }
    runner.run_all(executors, pass, 1);
    begin = end;
  }
  runner.plan_rest(seconds_since(first_round_started));
  const std::size_t last_look = runner.state().rule().looks;
  for (std::size_t look = 1;; ++look) {
    const std::vector<comparison_look> looks = runner.look(look);
    const bool open = std::any_of(looks.begin(), looks.end(),
                                  [](const auto& l) { return !l.decided && !l.unmeasurable; });
    if (!open) return runner.finish(executors, "every comparison decided");
    if (look >= last_look) return runner.finish(executors, "");
    const auto round = runner.state().plan_round(looks, look);
    if (round.empty())
      return runner.finish(executors,
                           "no open comparison would be decided within the processes a cell may "
                           "have");
    if (cut > 0)
      return runner.finish(
          executors,
          fmt::format("budget spent in the first round ({} first-round processes not run)", cut));
    if (!runner.grow(executors, round, look + 1)) {
      runner.look(look + 1);
      return runner.finish(executors, "budget spent");
    }
    if (look + 1 == last_look) runner.top_up(executors, round, looks, look + 1);
  }
}

budget_account fixed_plan_account(const run_plan& plan,
                                  const std::vector<measurement_record>& records,
                                  double spent_seconds) {
  std::vector<budget_cell> cells = budget_cells(plan);
  budget_state state(cells, rule_with_looks(1));
  for (std::size_t i = 0; i < records.size() && i < plan.schedule.size(); ++i) {
    const auto processes = figures_of(records[i]);
    const double seconds =
        records[i].worker.is_object() ? records[i].worker.value("wall_seconds", 0.0) : 0.0;
    if (processes.empty()) state.mark_unmeasurable(plan.schedule[i].cell);
    for (const auto& f : processes)
      state.add_process(plan.schedule[i].cell, f, seconds / static_cast<double>(processes.size()));
  }
  std::vector<tracked_comparison> comparisons =
      planned_comparisons(plan, json::parse(embedded::seed_claims_json));
  for (auto& p : peer_comparisons(plan, state)) comparisons.push_back(std::move(p));
  const std::vector<comparison_look> looks = state.judge(comparisons, 1);
  const std::vector<round_account> rounds;
  const account_input in{plan,         state,         looks,   rounds,
                         records,      plan.schedule, "fixed", "the fixed plan's processes all ran",
                         spent_seconds};
  return make_account(in);
}

}  // namespace alloclab::lab
