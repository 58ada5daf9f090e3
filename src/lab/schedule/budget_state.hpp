// The budget scheduler's state, free of processes and clocks so a simulation can drive it
// (tests/lab/budget_state_test.cpp): cells gather processes, each with per-repetition figures
// by metric; tracked comparisons between two cells are judged by the stop rule
// (stats/sequential.hpp) at each look; open comparisons ask for more processes of the cell whose
// spread dominates, up to the next look's process count. `alloclab try`'s looks are judged by it
// too (schedule/round_stopping.hpp: a round of runs is one ring run).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "plan/budget.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

// One ratio the run wants decided: figure(base) / figure(candidate) of `metric` (lower figures
// are better, so > 1 favours the candidate), decided when its interval holds no boundary.
struct tracked_comparison {
  std::string id;    // unique: "vs_std ...", a claim id, "peer ..."
  std::string kind;  // "vs_std", "claim", "peer", "vs_baseline" (try's rounds)
  std::size_t base = 0;
  std::size_t candidate = 0;
  std::string metric;  // a key of the cells' figures ("p50", "ns_per_pair", ...)
  std::vector<double> boundaries;
  // Picked as the best of, or holding if any of, this many candidates: judged at alpha / it.
  std::size_t candidates = 1;
  // > 0: an interval wholly inside [1 / (1 + margin), 1 + margin] decides it too, as "the same
  // within the margin" (stats/decision.hpp).
  double margin = 0;
  // Judged on its ring runs only (none yet: no interval), never on the sides' separate processes,
  // and on its own spread, not moderated toward the group's other paired comparisons: the rounds
  // of `alloclab try`, whose sides' run-to-run spreads differ (a pool would break the error rate).
  bool paired_only = false;
  // > 0: the figure's resolution (a CPU time read to 1 ms, a peak RSS to 1 KiB): a paired interval
  // is never narrower than rounding each side's figures to it allows (with_resolution_floor).
  double resolution = 0;
};

// A comparison at one look.
struct comparison_look {
  const tracked_comparison* comparison = nullptr;
  sequential_ratio ratio;
  bool decided = false;
  // Processes per side the interval would need to clear its nearest boundary at this estimate
  // and spread (0 when decided or not yet known; SIZE_MAX when no number of processes would: on
  // a boundary, or a side has no number).
  std::size_t processes_needed = 0;
  bool unmeasurable = false;  // a side has no number
  // The interval stands on paired readings: the sides' slices timed in lockstep (the count of
  // ring runs both sides took part in), not on the sides' separate processes.
  std::size_t paired_runs = 0;
};

class budget_state {
 public:
  budget_state(std::vector<budget_cell> cells, stop_rule rule);

  // Fixes the rest of the run once its first round has run, before the first look (the rule's
  // looks must not depend on what the intervals say): each cell's most processes (a cell whose
  // first round is its most, the placement twin, keeps it) and the rule's looks: as many as the
  // cells' rounds up to their most (its alpha and other settings are kept).
  void replan(std::size_t max_processes);

  // One more process of `cell`: its figures by metric, and what it cost.
  void add_process(std::size_t cell, const std::map<std::string, std::vector<double>>& figures,
                   double seconds);
  // The processes of one lockstep ring run (lockstep/ring.hpp), by cell: their figures paired
  // slice by slice, for every two of them. Call add_process for each as well.
  void add_ring(const std::vector<std::size_t>& cells,
                const std::vector<std::map<std::string, std::vector<double>>>& figures);
  std::size_t processes(std::size_t cell) const { return cells_.at(cell).processes; }
  // A cell whose process gave no number (failed, not applicable, not installed): it gets no more
  // processes, and its comparisons are not open but unmeasurable.
  void mark_unmeasurable(std::size_t cell) { cells_.at(cell).unmeasurable = true; }
  bool unmeasurable(std::size_t cell) const { return cells_.at(cell).unmeasurable; }
  // Mean wall seconds of the cell's processes (0 before the first).
  double seconds_per_process(std::size_t cell) const;
  process_spread spread(std::size_t cell, const std::string& metric) const;

  // Judges every comparison on what has been measured, at look `look` (1-based) of the rule. The
  // run's last look (`last`: its budget or rounds are spent) spends the alpha the looks it will
  // never take would have had (stop_rule::spending_the_rest).
  std::vector<comparison_look> judge(const std::vector<tracked_comparison>& comparisons,
                                     std::size_t look, bool last = false) const;

  struct growth {
    std::size_t cell = 0;
    std::size_t target_processes = 0;  // this cell's processes after the round
    std::size_t repetitions = 0;       // of each new process
  };
  // The cells open comparisons need more of, for the round after look `look` (1-based), most
  // promising first, each up to processes_after_look (the last round: up to the cell's most).
  // Empty after the rule's last look.
  std::vector<growth> plan_round(const std::vector<comparison_look>& looks, std::size_t look) const;
  // Processes `cell` may have after look `look`: its first round grown by half at each look.
  std::size_t processes_after_look(std::size_t cell, std::size_t look) const;

  // Seconds more processes would take to decide `l` at its observed spread (infinity: never).
  // A paired comparison's more ring runs cost a process of each side.
  double seconds_to_decide(const comparison_look& l) const;

  // Whether `l` needs no more processes per side (ring runs, paired) than a cell may have: its
  // cells' most, or `most` when > 0. A comparison beyond it gets no more processes.
  bool within_cap(const comparison_look& l, std::size_t most = 0) const;
  // Of `pass` (cells to get one more process each, in rings), those whose process could still
  // move an open comparison of `looks` within the cap: an unpaired one, or a paired one whose
  // other side is in the pass too.
  std::vector<std::size_t> helpful(const std::vector<comparison_look>& looks,
                                   const std::vector<std::size_t>& pass) const;

  const stop_rule& rule() const { return rule_; }
  const budget_cell& setup(std::size_t cell) const { return setup_.at(cell); }
  std::size_t cell_count() const { return setup_.size(); }

 private:
  struct cell_state {
    std::size_t processes = 0;
    bool unmeasurable = false;
    double seconds = 0;
    std::map<std::string, figures_by_process> figures;
  };
  pooled_between pool(std::size_t cell, const std::string& metric) const;
  // Two cells' paired runs, keyed by (first, second) with first < second, then by metric: the
  // per-slice ratios first / second, and each side's figures, by ring run.
  using paired_key = std::pair<std::size_t, std::size_t>;
  struct paired_runs {
    figures_by_process ratios, first, second;
  };
  std::map<paired_key, std::map<std::string, paired_runs>> paired_;
  // base / candidate per slice pair, grouped by ring run (empty: never paired).
  figures_by_process paired_ratios(std::size_t base, std::size_t candidate,
                                   const std::string& metric) const;
  pooled_between paired_pool(const paired_key& left_out, const std::string& metric) const;
  sequential_ratio judge_pair(const tracked_comparison& c, const stop_rule& rule, std::size_t& runs,
                              double& variance) const;
  std::size_t repetitions_for(std::size_t cell, const std::string& metric) const;
  // The processes `cell` may have after the round that follows look `look`.
  std::size_t allowed_after(std::size_t cell, std::size_t look) const;
  // The cell's part of a comparison's log-ratio variance: its moderated process variance over
  // its processes.
  double variance_share(std::size_t cell, const std::string& metric) const;

  std::vector<budget_cell> setup_;
  std::vector<cell_state> cells_;
  stop_rule rule_;
};

}  // namespace alloclab::lab
