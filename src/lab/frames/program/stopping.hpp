// When `alloclab try` stops: after a fixed number of rounds (`--rounds N`), or adaptively
// (`--budget`, the default): at least `min_rounds`, then a look after the rounds planned before
// the first run (3, 5, 8, 12, ... growing by half, up to `max_rounds`) and, once more, when the
// budget cannot pay for another round. A look judges every combination's CPU time against the
// baseline's with the lab's stop rule (stats/sequential.hpp, compare_runs: each run is one process, alpha spent
// over the planned looks); the run stops when each is decided, i.e. its interval lies wholly
// beyond the noise floor on one side or wholly inside it.
//
// Because the looks and their alphas are fixed before any run and each look's interval is wide
// enough for its share of alpha, the chance that a given comparison's interval misses its true
// ratio at any look stays at most alpha whenever the rounds stop (per comparison and metric, not
// over all of them together): the final verdicts use the last look's intervals. A look after
// which none can follow (the budget or the rounds spent) spends all the alpha the others left.
//
// Example:
//   const auto plan = alloclab::program::adaptive_stopping(3, 40, 300);
//   // plan.look_rounds == {3, 5, 8, 12, 18, 27, 40}
//   const auto look = alloclab::program::look_at(rows, 3, 0, plan.rule_at(1), 0.03);
//   if (look.open() == 0) { /* every comparison decided: stop */ }
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "frames/program/rounds.hpp"
#include "stats/sequential.hpp"

namespace alloclab::program {

struct stopping_plan {
  bool adaptive = false;
  std::size_t min_rounds = 0;
  std::size_t max_rounds = 0;
  double budget_seconds = 0;             ///< adaptive: wall time for all rounds
  std::vector<std::size_t> look_rounds;  ///< adaptive: completed rounds at which the rule looks
  lab::stop_rule rule_at(std::size_t look) const;  ///< looks = look_rounds.size()
};

stopping_plan fixed_stopping(std::size_t rounds);
/// min_rounds >= 2 and max_rounds >= min_rounds; budget_seconds > 0.
stopping_plan adaptive_stopping(std::size_t min_rounds, std::size_t max_rounds,
                                double budget_seconds);

/// The ratios a decision needs to clear: 1 / (1 + floor) and 1 + floor.
std::vector<double> noise_boundaries(double noise_floor);

/// The resolutions of the figures: CPU time (rusage, counted to a millisecond here to be safe
/// about tick-based accounting) and peak RSS (ru_maxrss counts KiB).
inline constexpr double cpu_resolution_seconds = 1e-3;
inline constexpr double rss_resolution_bytes = 1024;

struct comparison_look {
  std::size_t combination = 0;
  lab::sequential_ratio cpu;
  bool decided = false;
  bool undecidable = false;  ///< most runs of a side failed: more rounds will not decide it
};

struct look_state {
  std::size_t look = 0;                      ///< 1-based
  std::size_t rounds = 0;                    ///< completed rounds it saw
  std::vector<comparison_look> comparisons;  ///< every combination but the baseline
  std::size_t open() const;
};

/// A figure of combination `a` and of `b`, from the rounds in which both ran successfully, in
/// round order: the pairs a paired interval stands on (lab::compare_paired_runs).
struct paired_figures {
  std::vector<double> a, b;
};
paired_figures paired_by_round(const std::vector<run_row>& rows, std::size_t a, std::size_t b,
                               double (*figure)(const run_record&));
double cpu_seconds_of(const run_record& r);
double peak_rss_of(const run_record& r);

/// Judges the rows' CPU times at `rule.look`, each combination against the baseline on the
/// ratios of their runs paired by round.
look_state look_at(const std::vector<run_row>& rows, std::size_t combinations, std::size_t baseline,
                   const lab::stop_rule& rule, double noise_floor);

/// What a run of rounds did, for results.json and the report.
struct stopping_outcome {
  std::size_t rounds = 0;                 ///< completed
  std::size_t looks_taken = 0;            ///< adaptive: looks the rule took
  std::string stopped_because;            ///< "fixed rounds", "every comparison decided", ...
  std::vector<std::string> open;          ///< labels still undecided at the last look
  std::vector<std::string> failing;       ///< labels undecidable: most runs of a side failed
  std::size_t compared = 0, decided = 0;  ///< comparisons at the last look, and decided ones
  double confidence = 0;                  ///< of the last look's intervals (0: no look)
};

/// Decides after each completed round whether another one runs (see the top of this file).
class round_stopper {
 public:
  round_stopper(stopping_plan plan, std::size_t combinations, std::size_t baseline,
                double noise_floor, std::vector<std::string> labels);
  /// `elapsed_seconds`: wall time since the first round began.
  bool another_round(const std::vector<run_row>& rows, std::size_t completed_rounds,
                     double elapsed_seconds);
  /// The rounds were interrupted by `signal` after `completed_rounds`: an adaptive run takes its
  /// last look now, spending the alpha left (no look can follow it).
  void interrupted(const std::vector<run_row>& rows, std::size_t completed_rounds, int signal);
  const stopping_outcome& outcome() const { return outcome_; }
  /// The rule of the last look taken (for the final intervals); the plan's last without a look.
  lab::stop_rule final_rule() const;

 private:
  bool finish(std::string reason, const look_state* last);
  look_state take_look(const std::vector<run_row>& rows, bool final_look);

  stopping_plan plan_;
  std::size_t combinations_, baseline_;
  double noise_floor_;
  std::vector<std::string> labels_;
  stopping_outcome outcome_;
  lab::stop_rule last_rule_;
};

}  // namespace alloclab::program
