// The program frame's own figures in results.json (model/frame_part.hpp): its top-level `program`
// section, the user's program under each malloc and knob variant (`alloclab try`). Each struct
// names its fields once (model/fields.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

struct knob_reading_figures {
  std::optional<std::string> set, value;
  std::string how;
  std::optional<bool> applied;
  static constexpr const char* about_type =
      "a knob as the malloc inside the program reports it, read back by the liveness probe "
      "(src/lab/mallocs/knob_readback.hpp)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.set, "set", "the variant's value, null when it does not set the knob");
    field(s.value, "value",
          "what the malloc reports, null when it cannot (glibc, another mimalloc)");
    field(s.how, "how", "how it was read, or why not");
    field(s.applied, "applied", "`value` equals `set`; null when either is null");
  }
};

struct program_run_figures {
  double cpu_seconds = 0, user_seconds = 0, sys_seconds = 0, wall_seconds = 0;
  std::uint64_t peak_rss_bytes = 0, minor_faults = 0, major_faults = 0, voluntary_switches = 0,
                involuntary_switches = 0;
  static constexpr const char* about_type =
      "from `wait4`'s rusage: the program and every descendant it waited for; peak RSS is the "
      "largest VmHWM its processes report at exit, not a sum (`wait4`'s ru_maxrss, which keeps "
      "the `alloclab` parent's high-water mark from before exec, only when none reports one)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.cpu_seconds, "cpu_seconds", "user + sys", model::at_least(0));
    field(s.user_seconds, "user_seconds", "user CPU", model::at_least(0));
    field(s.sys_seconds, "sys_seconds", "system CPU", model::at_least(0));
    field(s.wall_seconds, "wall_seconds", "wall time", model::at_least(0));
    field(s.peak_rss_bytes, "peak_rss_bytes", "the largest VmHWM, else ru_maxrss");
    field(s.minor_faults, "minor_faults", "minor page faults");
    field(s.major_faults, "major_faults", "major page faults");
    field(s.voluntary_switches, "voluntary_switches", "voluntary context switches");
    field(s.involuntary_switches, "involuntary_switches", "involuntary context switches");
  }
};

struct knob_check_figures {
  std::string status;
  std::optional<std::map<std::string, knob_reading_figures>> read_back;
  static constexpr const char* about_type = "the variant's knobs over its runs";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.status, "status",
          "`applied` (every set knob read back as set in every run), `not applied` (some run "
          "read one back different: those runs failed), `unverifiable` (a set knob cannot be "
          "read back), `no knobs set` (the malloc's defaults), `not read` (no run reached the "
          "probe)",
          model::one_of{"applied", "not applied", "unverifiable", "no knobs set", "not read"});
    field(s.read_back, "read_back", "the first such run's `knobs_read_back`, null when none");
  }
};

struct program_ratio {
  double ratio = 0;
  std::optional<bool> decided;
  std::optional<model::interval> interval;
  double p_value = 1;
  bool enough_runs = false;
  std::string verdict;
  static constexpr const char* about_type = "a combination's figure ÷ the baseline's";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.ratio, "ratio",
          "fixed rounds: median ÷ the baseline's median; adaptive rounds: ratio of geometric "
          "means",
          model::at_least(0));
    field(s.decided, "decided",
          "adaptive rounds: whether the stop rule decided it (its interval wholly beyond the noise "
          "floor or wholly inside it, with runs enough for the U test); null with fixed rounds",
          model::may_be_absent);
    field(s.interval, "interval",
          "fixed rounds: 95 % percentile bootstrap of the ratio of medians; adaptive rounds: the "
          "stop rule's interval at the last look (`stopping.confidence`)");
    field(s.p_value, "p_value",
          "two-sided Mann-Whitney U over the per-run figures (nominal after adaptive rounds)",
          model::at_least(0), model::at_most(1));
    field(s.enough_runs, "enough_runs", "the U test can reach p < 0.05 with these counts");
    field(s.verdict, "verdict",
          "`faster`/`slower` (CPU) or `smaller`/`larger` (RSS) when `judge_difference` decides "
          "it, else `inside the noise` (adaptive: decided to lie inside the noise floor), "
          "`inconclusive (open)` (adaptive: undecided) or `too few runs`",
          model::one_of{"faster", "slower", "smaller", "larger", "inside the noise",
                        "inconclusive (open)", "too few runs"});
  }
};

struct program_stopping {
  std::string mode, stopped_because, interval;
  std::size_t rounds = 0;
  model::omittable<double> budget_seconds, confidence;
  model::omittable<std::size_t> min_rounds, max_rounds, looks_taken, comparisons, decided;
  model::omittable<std::vector<std::size_t>> look_rounds;
  model::omittable<std::vector<std::string>> open, failing;
  static constexpr const char* about_type =
      "how the rounds stopped (frames/program/stopping.hpp, docs/budget.md); the keys after "
      "`interval` are written for adaptive rounds only";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mode, "mode", "`fixed` (`--rounds N`) or `adaptive` (`--budget`, the default)",
          model::one_of{"fixed", "adaptive"});
    field(s.rounds, "rounds", "rounds completed");
    field(s.stopped_because, "stopped_because",
          "`the fixed number of rounds`, `every comparison decided`, `no open comparison a round "
          "could decide`, `the budget spent` or `the maximum number of rounds`");
    field(s.interval, "interval", "how the ratios' intervals were made");
    field(s.budget_seconds, "budget_seconds", "wall time for all rounds", model::at_least(0));
    field(s.min_rounds, "min_rounds", "rounds before the first look, whatever the budget");
    field(s.max_rounds, "max_rounds", "at most this many rounds");
    field(s.look_rounds, "look_rounds", "the rounds after which the rule looks, planned first");
    field(s.looks_taken, "looks_taken", "looks the rule took");
    field(s.confidence, "confidence",
          "of the last look's intervals (a look after which none could follow spends all the "
          "alpha left)",
          model::at_least(0), model::at_most(1));
    field(s.comparisons, "comparisons", "CPU comparisons with the baseline at the last look");
    field(s.decided, "decided", "of those, decided");
    field(s.open, "open", "combinations still undecided at the last look");
    field(s.failing, "failing", "combinations undecidable: most runs of a side failed");
  }
};

struct combination_result {
  std::string name, malloc;
  std::map<std::string, std::string> knobs, knob_environment;
  knob_check_figures knob_check;
  std::size_t runs_ok = 0, runs_failed = 0;
  std::vector<std::string> failures;
  program_run_figures median;
  std::optional<program_ratio> cpu_vs_baseline, peak_rss_vs_baseline;
  bool pareto_front = false;
  std::vector<std::string> stdout_hashes;
  static constexpr const char* about_type =
      "one per malloc (its defaults) and per `--variants` entry";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.name, "name", "e.g. `jemalloc dirty_decay_ms=0`");
    field(s.malloc, "malloc", "the malloc");
    field(s.knobs, "knobs", "knob → value");
    field(s.knob_environment, "knob_environment", "the variables that set them");
    field(s.knob_check, "knob_check", "whether the knobs took");
    field(s.runs_ok, "runs_ok", "successful runs");
    field(s.runs_failed, "runs_failed", "failed runs");
    field(s.failures, "failures", "distinct reasons");
    field(s.median, "median", "medians over the successful runs");
    field(s.cpu_vs_baseline, "cpu_vs_baseline",
          "null for the baseline and without successful runs");
    field(s.peak_rss_vs_baseline, "peak_rss_vs_baseline", "the same for peak RSS");
    field(s.pareto_front, "pareto_front",
          "no other combination has both a lower median CPU time and a lower median peak RSS");
    field(s.stdout_hashes, "stdout_hashes", "distinct stdout hashes of its runs");
  }
};

struct program_run_row {
  program_run_figures figures;
  std::size_t round = 0, position = 0;
  std::string combination;
  bool ok = false, malloc_live = false;
  std::optional<std::string> reason;
  int exit_code = 0;
  std::string stdout_hash;
  std::uint64_t stdout_bytes = 0;
  std::map<std::string, knob_reading_figures> knobs_read_back;
  static constexpr const char* about_type = "one run of the program, with the figures of `median`";
  template <class S, class F>
  static void fields(S& s, F& field) {
    program_run_figures::fields(s.figures, field);
    field(s.round, "round", "0-based");
    field(s.position, "position", "in its round's order");
    field(s.combination, "combination", "the combination's name");
    field(s.ok, "ok", "the run succeeded");
    field(s.malloc_live, "malloc_live", "every probed process proved the malloc");
    field(s.reason, "reason",
          "why not ok: exit status, signal, timeout, malloc not proven live, a knob not applied; "
          "null when ok");
    field(s.exit_code, "exit_code", "its exit status");
    field(s.stdout_hash, "stdout_hash", "FNV-1a 64 of its stdout, hex");
    field(s.stdout_bytes, "stdout_bytes", "bytes it printed");
    field(s.knobs_read_back, "knobs_read_back",
          "knob → what the malloc reported, from the first process of the run that loaded the "
          "probe");
  }
};

struct output_figures {
  std::string mode;
  bool consistent = true;
  std::optional<std::string> finding;
  static constexpr const char* about_type = "whether the program printed the same output";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mode, "mode", "`--output`", model::one_of{"discard", "check"});
    field(s.consistent, "consistent", "one stdout over every successful run");
    field(s.finding, "finding",
          "which combinations printed which stdout hash, null when consistent");
  }
};

struct program_results_section {
  std::vector<std::string> command;
  std::optional<std::string> working_directory, stdin_path;
  double timeout_seconds = 0;
  std::size_t rounds = 0;
  std::optional<program_stopping> stopping;
  std::uint64_t seed = 0;
  std::string order;
  std::optional<std::string> baseline;
  double noise_floor_percent = 0;
  std::string measures, liveness;
  output_figures output;
  std::vector<combination_result> combinations;
  std::vector<program_run_row> runs;
  static constexpr const char* about_type =
      "the program frame (`alloclab try [options] -- PROG ARGS`): the user's own program run "
      "whole under each malloc and knob variant. Present only in a `try` run, whose document "
      "has no workloads or claims";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.command, "command", "PROG and its arguments");
    field(s.working_directory, "working_directory", "`--cwd` (null: alloclab's)");
    field(s.stdin_path, "stdin", "`--stdin` (null: `/dev/null`)");
    field(s.timeout_seconds, "timeout_seconds",
          "per run; a run over it is killed with its process group and fails", model::at_least(0));
    field(s.rounds, "rounds", "rounds completed; every combination once per round",
          model::at_least(1));
    field(s.stopping, "stopping", "how the rounds stopped", model::may_be_absent);
    field(s.seed, "seed", "each round's random order is drawn from it");
    field(s.order, "order", "the order in words");
    field(s.baseline, "baseline",
          "the combination the ratios divide by: `glibc` (defaults) when it ran, else the first");
    field(s.noise_floor_percent, "noise_floor_percent",
          "the floor of `judge_difference` (stats/decision.hpp)", model::at_least(0));
    field(s.measures, "measures", "what CPU time and peak RSS include");
    field(s.liveness, "liveness", "how each run's malloc was proven live and its knobs read back");
    field(s.output, "output", "the output check");
    field(s.combinations, "combinations", "one per malloc and variant");
    field(s.runs, "runs", "one per run");
  }
};

struct program_document_figures {
  program_results_section program;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.program, "program", "the program frame, in a `try` run");
  }
};

}  // namespace alloclab::lab
