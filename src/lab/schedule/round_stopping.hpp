// When a run in rounds (schedule/round_run.hpp) stops: after a fixed number of rounds, or
// adaptively: at least `min_rounds`, then a look after the rounds planned before the first run
// (3, 5, 8, 12, ... growing by half, up to `max_rounds`: the budget's looks, plan/budget.hpp's
// processes_after) and, once more, when the budget cannot pay for another round. A look judges
// every cell's figure against the baseline cell's by the budget's state (schedule/budget_state.hpp,
// the judge of `alloclab run --budget`): each round is one ring run of the cells that ran in it,
// so the runs of one round are paired, each run one process, alpha spent over the planned looks;
// the run stops when each is decided, i.e. its interval lies wholly beyond the noise floor on one
// side or wholly inside it.
//
// Because the looks and their alphas are fixed before any run and each look's interval is wide
// enough for its share of alpha, the chance that a given comparison's interval misses its true
// ratio at any look stays at most alpha whenever the rounds stop (per comparison and metric, not
// over all of them together): the final verdicts use the last look's intervals. A look after
// which none can follow (the budget or the rounds spent) spends all the alpha the others left.
// `alloclab try` stops its rounds by this rule, on each run's CPU time.
//
// The looks' and final intervals' numbers are those of the rounds' former judge (a Student-t
// over the rounds' ratios, stats/sequential.hpp's compare_paired_runs) to 1e-12
// (tests/frames/program/try_judge_equivalence_test.cpp), so the A/A and known-effect
// validations of `try` made with that judge hold for this one.
//
// Example:
//   const auto plan = alloclab::lab::adaptive_stopping(3, 40, 300);
//   // plan.look_rounds == {3, 5, 8, 12, 18, 27, 40}
//   const auto look = judge_rounds(readings, judged, plan.rule_at(1));
//   if (look.open() == 0) { /* every comparison decided: stop */ }
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "schedule/round_run.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

struct stopping_plan {
  bool adaptive = false;
  std::size_t min_rounds = 0;
  std::size_t max_rounds = 0;
  double budget_seconds = 0;             ///< adaptive: wall time for all rounds
  std::vector<std::size_t> look_rounds;  ///< adaptive: completed rounds at which the rule looks
  stop_rule rule_at(std::size_t look) const;  ///< looks = look_rounds.size()
};

stopping_plan fixed_stopping(std::size_t rounds);
/// min_rounds >= 2 and max_rounds >= min_rounds; budget_seconds > 0.
stopping_plan adaptive_stopping(std::size_t min_rounds, std::size_t max_rounds,
                                double budget_seconds);

/// The ratios a decision needs to clear: 1 / (1 + floor) and 1 + floor.
std::vector<double> noise_boundaries(double noise_floor);

/// One run's reading of the figure the rule judges (meaningful when `ok`).
struct round_reading {
  std::size_t round = 0;
  std::size_t cell = 0;
  bool ok = false;
  double value = 0;
};
/// Each record's reading of `figure` (its frame's stop readings; none: not ok), by its task.
std::vector<round_reading> round_readings(const round_records& ran, const std::string& figure);

/// The figure the rule judges, and the cells it judges against the baseline.
struct round_judged {
  std::size_t cells = 0, baseline = 0;
  std::vector<std::string> labels;  ///< by cell
  double noise_floor = 0;
  double resolution = 0;  ///< of the figure
};

/// A comparison at a look: the cell's figure over the baseline's (> 1: the cell's is higher).
struct round_comparison {
  std::size_t cell = 0;
  sequential_ratio ratio;
  bool decided = false;
  bool undecidable = false;  ///< most runs of a side failed: more rounds will not decide it
};

struct round_look {
  std::size_t look = 0;                       ///< 1-based
  std::vector<round_comparison> comparisons;  ///< every cell but the baseline
  std::size_t open() const;
};

/// Judges the readings at `rule` (its look, and whether it spends the rest) by the budget's state
/// (schedule/budget_state.hpp): each round one ring run of the cells that ran successfully in it
/// (one figure in one slice each, so their runs pair by round), each such run one process of its
/// cell; each cell tracked against the baseline on its ring runs only, on its own spread (no
/// pool), never narrower than the figure's resolution allows. Decided: beyond or inside
/// noise_boundaries(noise_floor), and the U test's counts can reach p < alpha.
round_look judge_rounds(const std::vector<round_reading>& readings, const round_judged& judged,
                        const stop_rule& rule);

/// What a run of rounds did, for results.json and the report.
struct stopping_outcome {
  std::size_t rounds = 0;                 ///< completed
  std::size_t looks_taken = 0;            ///< adaptive: looks the rule took
  std::string stopped_because;            ///< "fixed rounds", "every comparison decided", ...
  std::vector<std::string> open;          ///< labels still undecided at the last look
  std::vector<std::string> failing;       ///< labels undecidable: most runs of a side failed
  std::size_t compared = 0, decided = 0;  ///< comparisons at the last look, and decided ones
  double confidence = 0;                  ///< of the last look's intervals (0: no look)
  bool last_look_final = false;           ///< the last look ended the rounds: spent the rest
  // Its JSON (a run's facts carry it to the results stage, e.g. the program frame's).
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.rounds, "rounds", "rounds completed");
    field(s.looks_taken, "looks_taken", "looks the rule took");
    field(s.stopped_because, "stopped_because", "why the rounds stopped");
    field(s.open, "open", "labels undecided at the last look");
    field(s.failing, "failing", "labels undecidable: most runs of a side failed");
    field(s.compared, "compared", "comparisons at the last look");
    field(s.decided, "decided", "comparisons decided at the last look");
    field(s.confidence, "confidence", "of the last look's intervals; 0: no look");
    field(s.last_look_final, "last_look_final", "the last look spent all alpha left");
  }
};

/// The rule of the last look `outcome` took (for the final intervals); the plan's first
/// without a look.
stop_rule final_rule(const stopping_plan& plan, const stopping_outcome& outcome);

/// Decides after each completed round whether another one runs (see the top of this file).
class round_stopper {
 public:
  round_stopper(stopping_plan plan, round_judged judged);
  /// `elapsed_seconds`: wall time since the first round began.
  bool another_round(const std::vector<round_reading>& readings, std::size_t completed_rounds,
                     double elapsed_seconds);
  /// The rounds were interrupted by `signal` after `completed_rounds`: an adaptive run takes its
  /// last look now, spending the alpha left (no look can follow it).
  void interrupted(const std::vector<round_reading>& readings, std::size_t completed_rounds,
                   int signal);
  const stopping_outcome& outcome() const { return outcome_; }
  /// The rule of the last look taken (for the final intervals): final_rule(plan, outcome()).
  stop_rule final_rule() const;

 private:
  bool finish(std::string reason, const round_look* last);
  round_look take_look(const std::vector<round_reading>& readings, bool final_look);

  stopping_plan plan_;
  round_judged judged_;
  stopping_outcome outcome_;
};

}  // namespace alloclab::lab
