// The results model's account of how a run went, beside its figures: the noise gate (what else
// the machine did), the stop rule's budget account (docs/budget.md), and the shard or merge a
// file came from (docs/fleet.md). Top-level keys of results.json every frame shares.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"

namespace alloclab::lab::model {

// ---- noise ----
struct host_settings_facts {
  std::vector<std::string> governors;
  std::optional<bool> boost;
  std::optional<std::string> transparent_hugepages;
  std::optional<int> aslr;
  int cpus = 0;
  static constexpr const char* about_type = "the machine's settings that move timings";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.governors, "governors",
          "the distinct `scaling_governor` values; empty when not readable");
    field(s.boost, "boost", "CPU frequency boost on (null: not readable)");
    field(s.transparent_hugepages, "transparent_hugepages",
          "the chosen THP mode (null: not readable)");
    field(s.aslr, "aslr", "`kernel/randomize_va_space` (2: full; null: not readable)");
    field(s.cpus, "cpus", "logical CPUs listed in `/proc/stat`", at_least(0));
  }
};

struct load_before {
  std::optional<double> load_1min;
  static constexpr const char* about_type = "the machine when the run started";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.load_1min, "load_1min", "the 1-minute load average (null: not readable)");
  }
};

struct load_during {
  double seconds = 0, own_cpus = 0, other_cpus = 0, steal_share = 0;
  std::optional<double> load_1min_at_end;
  static constexpr const char* about_type = "the machine while the run measured";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.seconds, "seconds", "wall time watched", at_least(0));
    field(s.load_1min_at_end, "load_1min_at_end", "the 1-minute load average at the end");
    field(s.own_cpus, "own_cpus", "this run's CPU time ÷ wall time", at_least(0));
    field(s.other_cpus, "other_cpus", "the machine's busy time minus this run's, ÷ wall time",
          at_least(0));
    field(s.steal_share, "steal_share", "share of CPU time stolen by the hypervisor", at_least(0));
  }
};

struct busy_process {
  std::string name;
  double cpus = 0;
  static constexpr const char* about_type = "another process that used the CPUs";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.name, "name", "its command name");
    field(s.cpus, "cpus", "CPUs it used on average (at least 0.02)", at_least(0));
  }
};

struct noise_gate {
  host_settings_facts settings;
  std::optional<load_before> before;
  std::optional<load_during> during;
  std::vector<busy_process> busy_processes;
  bool busy = false;
  std::optional<std::string> warning;
  static constexpr const char* about_type =
      "the noise gate: what else the machine did while the run measured";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.settings, "settings", "the machine's settings");
    field(s.before, "before", "the load when the run started (null: not watched)");
    field(s.during, "during", "the load while it measured (null: not watched long enough)");
    field(s.busy_processes, "busy_processes", "the busiest other processes by name (at most 5)");
    field(s.busy, "busy", "other processes used more than 0.25 CPUs, or steal exceeded 2 %");
    field(s.warning, "warning", "the warning (also in `warnings`)");
  }
};

// ---- budget ----
struct stop_rule_facts {
  std::string name, simulation;
  std::size_t looks = 0;
  double alpha = 0, confidence = 0, prior_df = 0;
  static constexpr const char* about_type = "the stop rule (docs/budget.md)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.name, "name", "its name");
    field(s.looks, "looks", "K: at most this many looks decide", at_least(1));
    field(s.alpha, "alpha", "the error rate spent over the looks", at_least(0), at_most(1));
    field(s.confidence, "confidence", "1 − alpha ÷ K: each look's interval", at_least(0),
          at_most(1));
    field(s.prior_df, "prior_df", "the weight of the workload's pooled between-process variance",
          at_least(0));
    field(s.simulation, "simulation", "where its error rate is tested");
  }
};

struct budget_round {
  std::size_t look = 0, processes = 0, decided = 0, open = 0;
  double elapsed_seconds = 0;
  static constexpr const char* about_type = "one look of the stop rule";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.look, "look", "its number, from 1", at_least(1));
    field(s.processes, "processes", "processes started since the previous look");
    field(s.elapsed_seconds, "elapsed_seconds", "wall time of the run at the look", at_least(0));
    field(s.decided, "decided", "comparisons decided");
    field(s.open, "open", "comparisons still open");
  }
};

struct more_budget_facts {
  double budget_seconds = 0;
  std::size_t would_likely_decide = 0, of_open = 0;
  static constexpr const char* about_type = "what a larger budget would likely buy";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.budget_seconds, "budget_seconds", "three times this run's budget", at_least(0));
    field(s.would_likely_decide, "would_likely_decide",
          "open comparisons it would likely decide, at their observed spread and seconds per "
          "process, cheapest first");
    field(s.of_open, "of_open", "comparisons open");
  }
};

struct budget_cell_name {
  std::string frame, workload, strategy, malloc;
  static constexpr const char* about_type = "a plan cell";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.frame, "frame", "its frame");
    field(s.workload, "workload", "its workload");
    field(s.strategy, "strategy", "its strategy");
    field(s.malloc, "malloc", "its malloc");
  }
};

struct budget_cell {
  budget_cell_name name;  // its keys beside the others, not an object of their own
  std::string figure, spread;
  bool placement_twin = false;
  std::size_t processes = 0, repetitions = 0;
  std::optional<std::size_t> samples_per_repetition;
  double seconds = 0;
  std::optional<double> between_cv, within_cv;
  static constexpr const char* about_type = "what one plan cell's processes bought";
  template <class S, class F>
  static void fields(S& s, F& field) {
    budget_cell_name::fields(s.name, field);
    field(s.placement_twin, "placement_twin", "the glibc_nocliff twin of a glibc cell");
    field(s.processes, "processes", "processes that measured it");
    field(s.repetitions, "repetitions", "repetitions over those processes");
    field(s.samples_per_repetition, "samples_per_repetition",
          "timed samples per repetition (batch cells; null otherwise)");
    field(s.seconds, "seconds", "wall time of its processes", at_least(0));
    field(s.figure, "figure", "what its spread is of (`p50`, `ns_per_pair`, `cpu_per_request`)");
    field(s.between_cv, "between_cv",
          "square root of the between-process variance of the log figure (null: unknown)",
          at_least(0));
    field(s.within_cv, "within_cv",
          "square root of the within-process variance of the log figure (null: unknown)",
          at_least(0));
    field(s.spread, "spread", "which variance dominates, or `unknown (one process)`");
  }
};

// The spread of one frame's workload over its measured cells: the report's spread table.
struct workload_spread {
  std::string frame, workload;
  std::size_t cells = 0, processes_min = 0, processes_max = 0, between_dominates = 0;
  std::optional<std::size_t> samples_min, samples_max;
  std::optional<double> between_cv_median, within_cv_median;
  static constexpr const char* about_type = "one frame's workload over its cells that measured";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.frame, "frame", "the frame");
    field(s.workload, "workload", "the workload");
    field(s.cells, "cells", "its cells with at least one process", at_least(1));
    field(s.processes_min, "processes_min", "the fewest processes a cell got");
    field(s.processes_max, "processes_max", "the most");
    field(s.samples_min, "samples_min",
          "the fewest timed samples per repetition (null: no cell has the figure)");
    field(s.samples_max, "samples_max", "the most");
    field(s.between_cv_median, "between_cv_median",
          "the cells' upper median `between_cv` (null: none known)", at_least(0));
    field(s.within_cv_median, "within_cv_median", "the cells' upper median `within_cv`",
          at_least(0));
    field(s.between_dominates, "between_dominates", "cells whose `spread` is `between processes`");
  }
};

struct budget_comparison {
  std::string id, kind, metric, state;
  budget_cell_name base, candidate;
  std::vector<double> boundaries;
  std::optional<double> value, low, high, df;
  std::vector<std::size_t> processes;
  std::optional<std::size_t> processes_needed;
  omittable<std::size_t> candidates;
  omittable<double> confidence;
  omittable<std::size_t> paired_runs;
  omittable<double> margin;
  omittable<std::string> verdict;
  static constexpr const char* about_type = "a comparison the stop rule tracked, at its last look";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.id, "id",
          "a claim's id (with ` @ malloc` for each candidate malloc), `vs_std …` or `peer …`");
    field(s.kind, "kind", "what it decides (`build`: one cell of two builds, `compare --paired`)",
          one_of{"vs_std", "claim", "peer", "build"});
    field(s.metric, "metric", "the figure compared");
    field(s.base, "base", "the base cell");
    field(s.candidate, "candidate", "the candidate cell");
    field(s.boundaries, "boundaries", "the ratios its verdict turns on");
    field(s.value, "value",
          "base ÷ candidate of the process-level means, > 1 favours the candidate (null: no "
          "figure)",
          at_least(0));
    field(s.low, "low", "the stop-rule interval's low end (null while the spread is unknown)");
    field(s.high, "high", "its high end");
    field(s.df, "df", "its degrees of freedom");
    field(s.processes, "processes", "`[base, candidate]` processes");
    field(s.state, "state", "at the last look", one_of{"decided", "open", "unmeasurable"});
    field(s.processes_needed, "processes_needed",
          "per side, to clear the nearest boundary at this spread; null when decided or not yet "
          "known");
    field(s.candidates, "candidates",
          "picked as the best of (peers), or holding if any of (claims), this many: its interval "
          "is at alpha ÷ candidates; absent in files written before the selection correction",
          at_least(1));
    field(s.confidence, "confidence", "its interval's confidence", at_least(0), at_most(1));
    field(s.paired_runs, "paired_runs",
          "lockstep ring runs both sides took part in: when > 0 the interval stands on the "
          "per-slice ratios of those runs (paired), not on the sides' separate processes; absent "
          "in files written before pairing",
          at_least(0));
    field(s.margin, "margin",
          "equivalence margin: an interval inside [1 / (1 + margin), 1 + margin] decides it as the "
          "same within the margin; absent when none",
          at_least(0));
    field(s.verdict, "verdict", "the answer at the last look",
          one_of{"candidate faster", "candidate slower", "the same within the margin", "open",
                 "unmeasurable", "decided"});
  }
};

struct planned_rest {
  double first_round_seconds = 0, seconds_left = 0, later_round_share = 0;
  std::size_t rounds = 0, max_processes = 0, looks = 1;
  static constexpr const char* about_type =
      "the rest of a budgeted run, planned once after its first round from that round's cost "
      "and before any interval is looked at";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.first_round_seconds, "first_round_seconds", "what the first round took", at_least(0));
    field(s.seconds_left, "seconds_left", "of the budget then, the closing seconds kept back",
          at_least(0));
    field(s.rounds, "rounds", "later rounds the seconds left afford");
    field(s.max_processes, "max_processes", "the most processes a cell may reach in them");
    field(s.looks, "looks", "the looks that takes, the first one included", at_least(1));
    field(s.later_round_share, "later_round_share",
          "a later round's assumed cost, as a share of the first round's", at_least(0));
  }
};

struct budget_facts {
  std::string mode, stopped;
  std::optional<double> budget_seconds, repetition_ms;
  double spent_seconds = 0;
  stop_rule_facts stop_rule;
  std::size_t processes = 0, decided = 0, open = 0, unmeasurable = 0;
  std::vector<budget_round> rounds;
  std::optional<more_budget_facts> more_budget;
  omittable<std::optional<planned_rest>> planned_after_first_round;
  std::vector<budget_cell> cells;
  omittable<std::vector<workload_spread>> spread;
  std::vector<budget_comparison> comparisons;
  static constexpr const char* about_type =
      "what the run's processes bought, judged by the stop rule (docs/budget.md): a budgeted run "
      "writes it after its last look, a fixed plan is judged once at the end";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mode, "mode", "a budgeted run or the fixed plan", one_of{"budget", "fixed"});
    field(s.budget_seconds, "budget_seconds", "`--budget` (null for a fixed plan)", at_least(0));
    field(s.spent_seconds, "spent_seconds", "wall time of the run when the account was made",
          at_least(0));
    field(s.repetition_ms, "repetition_ms",
          "timed work per repetition of a batch cell (null: fixed samples)", at_least(0));
    field(s.stop_rule, "stop_rule", "the rule");
    field(s.stopped, "stopped",
          "why no more processes started: every comparison decided, the rule's last look, nothing "
          "open could be decided within a cell's most processes, the budget spent");
    field(s.processes, "processes", "cell processes that ran (a served variant's servers count)");
    field(s.rounds, "rounds", "per look");
    field(s.decided, "decided", "comparisons decided at the last look");
    field(s.open, "open", "comparisons open at the last look");
    field(s.unmeasurable, "unmeasurable", "comparisons with a side that has no number");
    field(s.more_budget, "more_budget",
          "when comparisons are open in a budgeted run: what three times the budget would buy");
    field(s.planned_after_first_round, "planned_after_first_round",
          "a budgeted run's plan for the rest (null for a fixed plan); absent in files written "
          "before it");
    field(s.cells, "cells", "per plan cell");
    field(s.spread, "spread",
          "per frame and workload with a measured cell, in `cells` order: where the spread is; "
          "absent in files written before it (reading such a file computes it from `cells`)");
    field(s.comparisons, "comparisons", "every tracked comparison");
  }
};

// ---- shards and merges ----
struct shard_facts {
  std::size_t index = 1, count = 1, cells = 0, plan_cells = 0;
  std::string source, costs;
  std::vector<std::string> workloads;
  static constexpr const char* about_type =
      "a shard's part of the plan (`run --shard`; docs/fleet.md); `shard.json` beside the file "
      "holds the whole plan and this shard's measurement records";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.index, "index", "1-based", at_least(1));
    field(s.count, "count", "shards in the plan", at_least(1));
    field(s.source, "source",
          "how it was given: `--shard 2/3`, `JOB_COMPLETION_INDEX=1 ALLOCLAB_SHARD_COUNT=3`, …");
    field(s.workloads, "workloads", "this shard's workloads");
    field(s.cells, "cells", "this shard's cells, after the placement step");
    field(s.plan_cells, "plan_cells", "the whole plan's cells, likewise");
    field(s.costs, "costs",
          "what the deal weighed workloads by: `estimated`, or `measured in PATH` under "
          "`--shard-costs`");
  }
};

struct merged_shard {
  std::size_t index = 1, count = 1;
  std::string source, path, command, created_utc;
  double duration_seconds = 0;
  static constexpr const char* about_type = "one merged shard";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.index, "index", "1-based", at_least(1));
    field(s.count, "count", "shards in the plan", at_least(1));
    field(s.source, "source", "how its index was given");
    field(s.path, "path", "the results it was read from");
    field(s.command, "command", "its command line");
    field(s.created_utc, "created_utc", "when its results were assembled");
    field(s.duration_seconds, "duration_seconds", "its wall time", at_least(0));
  }
};

struct merge_facts {
  std::vector<merged_shard> shards;
  static constexpr const char* about_type =
      "results `alloclab merge` built from shards: `command` is then the merge's command line, "
      "`duration_seconds` the sum of the shards', and `environment` the first shard's";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.shards, "shards", "one per shard, in index order");
  }
};

}  // namespace alloclab::lab::model
