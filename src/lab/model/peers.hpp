// The peer check's verdicts in results.json (results/peer_verdict.cpp judges them; the batch
// frame's workloads hold them as `peer_verdicts`). Each struct names its fields once
// (model/fields.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab::model {

struct best_cell {
  std::string strategy;
  double p50_ns = 0;
  static constexpr const char* about_type = "the fastest alloclab strategy at p50";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "its strategy");
    field(s.p50_ns, "p50_ns", "its p50");
  }
};

struct peer_result {
  std::string strategy;
  double p50_ns = 0, ratio = 0;
  std::optional<model::interval> interval;
  double p_value = 1;
  omittable<double> adjusted_p_value;
  bool beaten = false;
  omittable<bool> same_within_margin;
  omittable<std::size_t> paired_runs;
  static constexpr const char* about_type = "one timed peer against the best alloclab strategy";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "the peer");
    field(s.p50_ns, "p50_ns", "its p50 (median of its repetition medians)");
    field(s.ratio, "ratio", "peer p50 ÷ best alloclab p50: > 1 means alloclab is faster");
    field(s.interval, "interval",
          "its 95 % percentile-bootstrap interval over repetition medians, or null with too few "
          "repetitions",
          may_be_absent);
    field(s.p_value, "p_value", "Mann-Whitney U over the two cells' repetition medians");
    field(s.adjusted_p_value, "adjusted_p_value",
          "`p_value` × the verdict's `candidates` (Bonferroni), at most 1: what `beaten` holds "
          "against alpha; absent in files written before the selection correction",
          at_least(0), at_most(1));
    field(s.beaten, "beaten",
          "p < alpha with enough repetitions and the interval's `low` above 1; where the stop "
          "rule tracked the peer (`paired_runs` present), its interval's `low` above 1");
    field(s.same_within_margin, "same_within_margin",
          "the stop rule's interval lies inside the equivalence margin (2 %): the two are the "
          "same, a decided answer; absent where the stop rule did not track the peer");
    field(s.paired_runs, "paired_runs",
          "the interval is the stop rule's, over this many lockstep ring runs (0: unpaired "
          "processes); absent where it is the bootstrap over repetitions",
          at_least(0));
  }
};

struct peer_verdict {
  std::string malloc, verdict;
  std::optional<best_cell> best_alloclab;
  std::vector<peer_result> peers;
  std::vector<std::string> unmeasured_peers;
  std::optional<std::string> reason;
  omittable<std::size_t> candidates;
  omittable<double> confidence;
  static constexpr const char* about_type =
      "per malloc: does the best `alloclab_*` strategy beat every peer at p50 with "
      "significance? Peers are `foonathan_*`, `boost_*`, `mimalloc_heap` and libstdc++'s "
      "`pmr_monotonic`, `pmr_unsync_pool`, `pmr_sync_pool`, `pmr_monotonic_over_pool`; `std`, "
      "`pmr_new_delete` and `pmr_monotonic_undersized` are neither side";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "the malloc of the cells judged");
    field(s.verdict, "verdict",
          "`met`: every peer beaten; `not_judged`: no alloclab or no peer number",
          one_of{"met", "missed", "not_judged"});
    field(s.best_alloclab, "best_alloclab", "the `alloclab_*` cell with the lowest p50, or null");
    field(s.peers, "peers", "each timed peer cell");
    field(s.unmeasured_peers, "unmeasured_peers",
          "peers without a number here (not counting `not_applicable`)");
    field(s.reason, "reason", "why not met, or null");
    field(s.candidates, "candidates",
          "`alloclab_*` strategies the best was picked among: each test is at alpha ÷ this; "
          "absent in files written before the selection correction",
          at_least(1));
    field(s.confidence, "confidence", "the peers' intervals' confidence: 1 − alpha ÷ candidates",
          at_least(0), at_most(1));
  }
};

}  // namespace alloclab::lab::model
