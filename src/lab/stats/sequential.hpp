// The stop rule of a budgeted run (`alloclab run --budget`): when a ratio between two cells is
// decided, from figures grouped by the process that measured them, at any of a fixed number of
// looks. docs/budget.md explains it; tests/lab/sequential_test.cpp checks its error rate by
// simulation.
//
// The unit is the process: a fresh process lands its buffers, heap and code somewhere else, so
// repetitions of one process share an offset that more repetitions cannot average away. On the
// log scale (a difference of logs is a ratio) each cell's figure is split into
//   between: the variance of a process's offset, and
//   within:  the variance of a repetition around its process's mean.
// A cell's level is the mean of its processes' means; its variance is (between + within / n) / P.
// With few processes per cell the between part is moderated toward the one its group of cells
// (a workload's) shares (Smyth's empirical-Bayes moderation, with a fixed prior weight), so one
// process per cell can already decide a large ratio once other cells of its group have two.
//
// Repeated looks: a comparison is looked at after each round of processes, at most `looks`
// times. Look k's interval is a Student-t interval at confidence 1 - alpha_k, the alphas summing
// to alpha (Bonferroni with unequal weights, doubling at each look: the early looks, with two or
// three processes, decide only large ratios and need little of it), so the chance that any
// look's interval misses the true ratio, and hence that a decision is false, is at most alpha
// whatever the stopping.
#pragma once

#include <cstddef>
#include <vector>

namespace alloclab::lab {

// A cell's per-repetition figures (positive, e.g. repetition medians in ns), one vector per
// process that measured it.
using figures_by_process = std::vector<std::vector<double>>;

// A cell's figure on the log scale, split into its variance components.
struct process_spread {
  std::size_t processes = 0;
  std::size_t repetitions = 0;  // over all processes
  double level = 0;             // mean over processes of each process's mean log figure
  double process_variance = 0;  // sample variance of the process means (0 with one process)
  double within = 0;            // pooled variance of a repetition around its process mean
  double within_df = 0;
  double within_part = 0;  // within / repetitions per process: its share of a process mean's var
  double between = 0;      // max(0, process_variance - within_part); 0 with one process
  bool valid() const { return processes > 0; }
};

// Empty processes are skipped; figures must be positive (a non-positive one makes it invalid).
process_spread spread_of(const figures_by_process& cell);

// The between-process variance a group of cells shares, pooled over those with two processes or
// more (weighted by processes - 1), and its degrees of freedom (0: no cell had two).
struct pooled_between {
  double variance = 0;
  double df = 0;
};
pooled_between pool_between(const std::vector<process_spread>& cells);

struct stop_rule {
  std::size_t looks = 4;  // at most this many looks decide
  double alpha = 0.05;    // spent over the looks: look k gets alpha * 2^(k-1) / (2^looks - 1)
  double prior_df = 4;    // the group's pooled between-process variance counts as this many df
  std::size_t look = 4;   // the look an interval is for (1-based); the last one by default
  // false: every look spends all of alpha (naive repeated looks; the simulation shows what that
  // does to the false-verdict rate, tests/lab/budget_simulation_test.cpp).
  bool adjusted = true;
  // Selection: a ratio whose candidate was picked as the best of this many (the fastest strategy
  // before a peer check), or that holds if any of this many does (an "any malloc" claim), is
  // judged at alpha / candidates (Bonferroni over the candidates).
  std::size_t candidates = 1;
  bool last_look = false;  // this look ends the rounds: it spends the rest (spending_the_rest)
  double alpha_at(std::size_t k) const;
  double confidence() const { return 1 - alpha_at(look); }
  stop_rule at_look(std::size_t k) const {
    stop_rule r = *this;
    r.look = k;
    return r;
  }
  stop_rule among(std::size_t n) const {
    stop_rule r = *this;
    r.candidates = n;
    return r;
  }
  // This look as the last that can come (the budget or the rounds are spent, or a signal): it
  // gets all the alpha the looks before it left, not only its own share.
  stop_rule spending_the_rest() const;
};
// A rule with `looks` looks, for its last look.
stop_rule rule_with_looks(std::size_t looks);

inline constexpr const char* stop_rule_name =
    "Bonferroni-adjusted repeated confidence intervals, the number of looks fixed after the first "
    "round from its cost and the budget left (alpha spent over the looks, doubling at each; "
    "alpha / N for a pick among N candidates): Student-t interval of the log ratio of "
    "process-level means, between-process variance moderated toward the workload's other cells "
    "(leave-one-out pool)";

// The variance of one process mean of `cell`, moderated toward `pool`, with its df (0: unknown).
struct moderated_variance {
  double variance = 0;
  double df = 0;
};
moderated_variance moderate(const process_spread& cell, const pooled_between& pool,
                            const stop_rule& rule);

// base level / candidate level (> 1: the candidate's figure is lower, i.e. faster), with its
// interval at rule.confidence(). Unbounded (low 0, high infinity) when a variance is unknown.
struct sequential_ratio {
  double value = 0;
  double low = 0;
  double high = 0;
  double df = 0;
  double log_se = 0;  // standard error of the log ratio
  bool bounded() const { return low > 0 && high < 1e300; }
};
sequential_ratio compare_levels(const process_spread& base, const pooled_between& base_pool,
                                const process_spread& candidate,
                                const pooled_between& candidate_pool, const stop_rule& rule);

// A paired comparison: `ratios` holds base figure / candidate figure per slice pair, grouped by
// the ring run (one process of each side, in lockstep) that measured them. Its level is the
// ratio; its variance that of one ring run's mean log ratio, moderated toward `pool` (the
// group's other paired comparisons), over the runs.
sequential_ratio compare_paired(const process_spread& ratios, const pooled_between& pool,
                                const stop_rule& rule);

// Each ring run's reading: the median of its per-slice ratios, as a run of one figure. A slice
// that another process on the CPU preempted is one slice's outlier, not the run's; the runs stay
// the independent unit (and the interval a Student-t over them).
figures_by_process median_by_run(const figures_by_process& ratios);

// The spread compare_paired stands on: the runs' medians, with `within_part` the variance a
// median of the run's slices has at least (pi/2 x the slices' pooled variance over their count),
// so two runs whose medians agree by chance, or by the clock's quantisation, do not read as no
// spread at all.
process_spread paired_spread(const figures_by_process& ratios);

// first / second for figures of one process each (a run of a whole program): each side its own
// variance (no pool: sides whose run-to-run spreads differ would break the error rate), and an
// interval never narrower than rounding each figure to `resolution` allows (identical runs read
// to a millisecond or a KiB get that width, not zero). resolution <= 0: no such floor.
sequential_ratio compare_runs(const std::vector<double>& first, const std::vector<double>& second,
                              const stop_rule& rule, double resolution);

// Widens `r` to what rounding each side's figures to `resolution` allows (q^2 / 12 per figure, q
// the resolution over the side's geometric mean), over `runs` runs; `first_level` and
// `second_level` are the sides' mean log figures. Unbounded `r`, resolution <= 0: unchanged.
// compare_runs and the budget's paired comparisons with a resolution (schedule/budget_state.hpp,
// `alloclab try`'s rounds) floor their intervals with it.
sequential_ratio with_resolution_floor(sequential_ratio r, double first_level, double second_level,
                                       std::size_t runs, const stop_rule& rule, double resolution);

// first / second for whole runs paired by round (`first[i]` and `second[i]` ran in round i): the
// ratio of each round's pair is one reading, the interval a Student-t over the rounds, no pool,
// never narrower than the figures' `resolution` allows. The reference `alloclab try`'s judge
// (budget_state on one ring per round, tests/frames/program/try_judge_equivalence_test.cpp) is
// held to; the lab itself judges rounds with budget_state.
sequential_ratio compare_paired_runs(const std::vector<double>& first,
                                     const std::vector<double>& second, const stop_rule& rule,
                                     double resolution);

// Decided: no boundary lies inside [low, high] (and the interval is bounded).
bool decided(const sequential_ratio& r, const std::vector<double>& boundaries);

// The factor by which the log ratio's standard error must shrink for the interval to clear the
// nearest boundary at this estimate (> 1: still open; infinity: the estimate sits on a boundary).
double shrink_needed(const sequential_ratio& r, const std::vector<double>& boundaries);

// Student-t quantile (two-sided interval at `confidence`) with `df` degrees of freedom.
double t_quantile(double confidence, double df);

}  // namespace alloclab::lab
