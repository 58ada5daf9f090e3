// `alloclab compare A.json B.json`: every cell (workload, strategy, malloc) of two results files
// side by side, like Google Benchmark's compare.py. For a cell in both: B ÷ A at p50 with a 95 %
// bootstrap interval over repetition medians and a Mann-Whitney U p over the same medians. It
// reads the results model (model::document) and nothing else of the files.
//
// Example:
//   const comparison c = compare_results(model::from_json(a), model::from_json(b), "a", "b");
//   std::cout << alloclab::lab::render_comparison_text(c);
//   const bool fail = alloclab::lab::regressions(c, 5.0) > 0;  // decided and > 5 % slower
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/document.hpp"
#include "stats/decision.hpp"

namespace alloclab::lab {

// A cell of one file: which one it is and how it ended.
struct compared_cell {
  std::string workload, strategy, malloc, status;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.workload, "workload", "the workload's name");
    field(s.strategy, "strategy", "the strategy");
    field(s.malloc, "malloc", "the process-wide malloc");
    field(s.status, "status", "the cell's status (in B for a cell in both)");
  }
};

// A cell in both files, B against A by the lab's one rule (stats/decision.hpp).
struct cell_change {
  compared_cell cell;
  std::string a_status;
  model::omittable<double> a_p50_ns, b_p50_ns;  // absent when either side has no timing
  std::optional<double> ratio, p_value;
  std::optional<model::interval> interval;
  bool significant = false;
  std::string decision, mark, note;
  std::string verdict = "open";  // verdict_word: what the HTML chart colours by
  template <class S, class F>
  static void fields(S& s, F& field) {
    compared_cell::fields(s.cell, field);
    field(s.a_status, "a_status", "the cell's status in A");
    field(s.a_p50_ns, "a_p50_ns", "A's pooled p50");
    field(s.b_p50_ns, "b_p50_ns", "B's pooled p50");
    field(s.ratio, "ratio", "B p50 ÷ A p50, null without both");
    field(s.interval, "interval", "95 % bootstrap interval of median(B) ÷ median(A)");
    field(s.p_value, "p_value", "Mann-Whitney U over the repetition medians");
    field(s.significant, "significant", "decided higher or lower");
    field(s.decision, "decision",
          "the verdict in the lab's one vocabulary: `decided slower`, `decided faster`, `the "
          "same within ±M %`, `open (inconclusive)` or `open (too few runs)`");
    field(s.verdict, "verdict",
          "the same verdict in one word (stats/decision.hpp verdict_word), the class the HTML "
          "chart colours by: `slower`, `faster` (decided), `same` (the same within the floor), "
          "`open`");
    field(s.mark, "mark", "`**`, `*`, `n.s.` or `?`");
    field(s.note, "note", "why there is no ratio");
  }
};

// The whole comparison; its JSON is what the HTML page's chart reads.
struct comparison {
  std::string a, b, a_created_utc, b_created_utc;
  std::vector<std::string> warnings;
  std::vector<cell_change> common;
  std::vector<compared_cell> only_a, only_b;
  double noise_floor_percent = 0;
  std::vector<std::optional<std::string>> revisions;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.a, "a", "A's name");
    field(s.b, "b", "B's name");
    field(s.a_created_utc, "a_created_utc", "when A was built");
    field(s.b_created_utc, "b_created_utc", "when B was built");
    field(s.warnings, "warnings", "why the runs are not like for like");
    field(s.common, "common", "cells in both");
    field(s.only_a, "only_a", "cells only in A");
    field(s.only_b, "only_b", "cells only in B");
    field(s.noise_floor_percent, "noise_floor_percent", "`--noise-floor`");
    field(s.revisions, "revisions", "A's and B's git revisions");
  }
};

// A program-frame run's combinations are cells of a workload "program `COMMAND` CPU", timed by
// the CPU time of each run (frame_module::compare_workloads). Throws usage_error when no cell is
// in both.
comparison compare_results(const model::document& a, const model::document& b,
                           const std::string& a_name, const std::string& b_name,
                           double noise_floor_percent = default_noise_floor_percent);

// Decided slowdowns (beyond the noise floor) of more than `percent` % (ratio > 1 + percent/100).
std::size_t regressions(const comparison& c, double percent);

std::string render_comparison_text(const comparison& c);
std::string render_comparison_markdown(const comparison& c);
std::string render_comparison_html(const comparison& c);

}  // namespace alloclab::lab
