// The results model of `alloclab compare --paired` (docs/ci-gate.md): two builds of the lab timed
// cell by cell in lockstep rings, each comparison decided on paired slices by the stop rule with
// an equivalence margin. Written only by that command, as the top-level `paired_builds`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/run_account.hpp"

namespace alloclab::lab::model {

struct paired_build {
  std::string binary;
  std::optional<std::string> git_revision;
  int worker_protocol = 0, lockstep_protocol = 0;
  static constexpr const char* about_type = "one side of a paired comparison of builds";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.binary, "binary", "the lab binary its workers ran (as given)");
    field(s.git_revision, "git_revision", "the revision it was built from (null: unknown)");
    field(s.worker_protocol, "worker_protocol",
          "the version of the batch worker's task and result documents it speaks", at_least(1));
    field(s.lockstep_protocol, "lockstep_protocol", "the version of the ring's token protocol",
          at_least(1));
  }
};

struct paired_side_figure {
  std::string status;
  std::optional<double> p50_ns;
  std::optional<std::string> reason;
  std::size_t slices = 0;
  static constexpr const char* about_type = "what one side's workers measured of a cell";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.status, "status", "`ok`, or why it has no number (`failed`, `not_installed`, ...)");
    field(s.p50_ns, "p50_ns", "median over its ring runs of each run's median p50 (null: none)",
          at_least(0));
    field(s.reason, "reason", "why it has no number (null when it has)");
    field(s.slices, "slices",
          "slices its workers timed under the ring's token, over every ring run (0: its workers "
          "never enrolled in the ring)");
  }
};

struct paired_cell {
  budget_comparison comparison;
  paired_side_figure baseline, candidate;
  std::optional<double> change_percent;
  bool regression = false;
  static constexpr const char* about_type = "one cell of both builds, compared";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.comparison, "comparison",
          "the stop rule's comparison (`kind` `build`): base is the baseline build's cell, "
          "candidate the candidate build's same cell; `value` = baseline ÷ candidate");
    field(s.baseline, "baseline", "the baseline build's side");
    field(s.candidate, "candidate", "the candidate build's side");
    field(s.change_percent, "change_percent",
          "candidate ÷ baseline − 1 in percent (> 0: the candidate is slower; null: no figure)");
    field(s.regression, "regression",
          "decided `candidate slower` by more than `fail_above_percent` (the CI gate)");
  }
};

struct paired_builds {
  paired_build baseline, candidate;
  std::string pair;
  double margin = 0, spent_seconds = 0;
  std::optional<double> budget_seconds, fail_above_percent;
  std::size_t most_runs = 0, regressions = 0;
  stop_rule_facts stop_rule;
  std::string stopped;
  std::vector<budget_round> rounds;
  std::vector<paired_cell> cells;
  static constexpr const char* about_type =
      "`alloclab compare --paired`: two builds timed cell by cell in lockstep "
      "([docs/ci-gate.md](ci-gate.md))";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.baseline, "baseline", "the reference build");
    field(s.candidate, "candidate", "the build under test");
    field(s.pair, "pair", "what one paired reading is, in words");
    field(s.margin, "margin", "the equivalence margin (0.02: ±2 %)", at_least(0));
    field(s.budget_seconds, "budget_seconds", "`--budget` (null: none)", at_least(0));
    field(s.spent_seconds, "spent_seconds", "wall time of the comparison", at_least(0));
    field(s.most_runs, "most_runs", "`--runs`: the most ring runs a cell may get", at_least(2));
    field(s.stop_rule, "stop_rule", "the rule");
    field(s.stopped, "stopped", "why no more ring runs started");
    field(s.rounds, "rounds", "per look (`processes`: worker processes started since the last)");
    field(s.fail_above_percent, "fail_above_percent",
          "`--fail-on-regression` (null: not given, the exit status ignores regressions)",
          at_least(0));
    field(s.regressions, "regressions", "cells with `regression` true");
    field(s.cells, "cells", "every compared cell, in plan order");
  }
};

}  // namespace alloclab::lab::model
