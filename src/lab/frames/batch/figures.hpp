// The batch frame's own figures in results.json (model/frame_part.hpp): per cell the counted pass
// and where blocks landed; per workload the tracking pass's footprint, the placement analysis and
// the peer verdicts. Each struct names its fields once (model/fields.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/fields.hpp"
#include "model/peers.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

struct counted_pass {
  double allocations_per_iteration = 0, bytes_per_iteration = 0;
  static constexpr const char* about_type =
      "the untimed counted pass, through global `operator new`";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.allocations_per_iteration, "allocations_per_iteration", "heap allocations",
          model::at_least(0));
    field(s.bytes_per_iteration, "bytes_per_iteration", "heap bytes", model::at_least(0));
  }
};

// {distinct, top: [[residue, count] x up to 8, most frequent first]}
struct sparse_residues {
  std::uint64_t distinct = 0;
  std::vector<std::vector<std::uint64_t>> top;
  static constexpr const char* about_type = "a histogram of residues mod 4096, most frequent first";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.distinct, "distinct", "residues seen");
    field(s.top, "top", "up to 8 `[residue, count]` pairs");
  }
};

struct address_residues {
  std::uint64_t blocks = 0;
  std::vector<std::uint64_t> mod64;
  sparse_residues mod4096;
  std::uint64_t growth_copies = 0;
  std::vector<std::uint64_t> growth_delta_mod64;
  sparse_residues growth_delta_mod4096;
  std::uint64_t growth_overflow = 0;
  std::optional<std::uint64_t> copies_on_cliff;
  std::optional<double> fraction_on_cliff;
  static constexpr const char* about_type =
      "where the counted pass's blocks landed (heap addresses through global `operator new` and "
      "the strategy's own resource; not recorded for `arena_static`, whose calls are not "
      "virtual)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.blocks, "blocks", "blocks recorded");
    field(s.mod64, "mod64", "64 bins: block address mod 64");
    field(s.mod4096, "mod4096", "block address mod 4096");
    field(s.growth_copies, "growth_copies",
          "reallocations that copied from the previous block (a growing container)");
    field(s.growth_delta_mod64, "growth_delta_mod64",
          "64 bins: (new block − previous block) mod 64, the relative offset a copy sees");
    field(s.growth_delta_mod4096, "growth_delta_mod4096", "the same mod 4096");
    field(s.growth_overflow, "growth_overflow", "growth copies past the recorder's table");
    field(s.copies_on_cliff, "copies_on_cliff",
          "growth copies at a placement the probe found on memmove's cliff; null without a "
          "probe");
    field(s.fraction_on_cliff, "fraction_on_cliff", "the same as a share of the classified copies");
  }
};

// The contention reference read around each repetition (measure/contention_reference.hpp).
struct contention_readings {
  std::vector<double> before_ns, after_ns, memory_before_ns, memory_after_ns;
  static constexpr const char* about_type =
      "the contention reference (a 64 KiB pointer chase, the median of 24, and one 2 MiB copy) "
      "read around each repetition, in the order of `timing.repetition_medians_ns`";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.before_ns, "before_ns", "ns per chase, right before the repetition's warm-up");
    field(s.after_ns, "after_ns", "ns per chase, right after its last sample");
    field(s.memory_before_ns, "memory_before_ns",
          "ns of one 2 MiB copy (last-level cache and memory), right before the warm-up",
          model::may_be_absent);
    field(s.memory_after_ns, "memory_after_ns", "the same, right after the last sample",
          model::may_be_absent);
  }
};

struct batch_cell_figures {
  std::optional<counted_pass> heap;
  std::optional<double> upstream_fallbacks_per_iteration;
  std::optional<address_residues> placement;
  model::omittable<contention_readings> contention_reference;
  static constexpr const char* about_type = "a lab workload's cell (the batch frame)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.heap, "heap",
          "untimed counted pass: allocations and bytes per iteration through global `operator "
          "new` (null when not applicable)");
    field(s.upstream_fallbacks_per_iteration, "upstream_fallbacks_per_iteration",
          "allocations the strategy's buffer passed to its upstream", model::at_least(0));
    field(s.placement, "placement", "counted pass: where the blocks landed");
    field(s.contention_reference, "contention_reference",
          "how fast the machine's caches were around each repetition; absent without timing and "
          "in files written before it");
  }
};

struct footprint {
  std::uint64_t allocations = 0, bytes_requested = 0, peak_bytes = 0, peak_blocks = 0,
                largest_request = 0, monotonic_footprint = 0, suggested_arena_bytes = 0;
  std::vector<std::uint64_t> size_histogram_log2;
  static constexpr const char* about_type = "the tracking pass over one iteration";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.allocations, "allocations", "requests per iteration");
    field(s.bytes_requested, "bytes_requested", "their sum");
    field(s.peak_bytes, "peak_bytes", "most bytes live at once");
    field(s.peak_blocks, "peak_blocks", "most blocks live at once");
    field(s.largest_request, "largest_request", "biggest single request");
    field(s.monotonic_footprint, "monotonic_footprint",
          "bytes a bump arena consumes, padding included");
    field(s.suggested_arena_bytes, "suggested_arena_bytes",
          "footprint + 25 %: what arena strategies get");
    field(s.size_histogram_log2, "size_histogram_log2", "the same as `size_histogram.bands`",
          model::may_be_absent);
  }
};

struct strategy_placement {
  std::string strategy;
  std::optional<model::estimate> with_cliff, without_cliff;
  bool placement_driven = false;
  static constexpr const char* about_type = "one strategy with and without the copy cliff";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "the strategy");
    field(s.with_cliff, "with_cliff", "its speedup over std under plain glibc");
    field(s.without_cliff, "without_cliff", "the same under the twin without the cliff");
    field(s.placement_driven, "placement_driven",
          "the intervals lie apart and the ratios differ by more than 15 %");
  }
};

struct placement_analysis {
  std::string malloc, twin;
  std::optional<model::estimate> baseline_copy_cliff_cost;
  std::vector<std::string> placement_driven;
  std::vector<strategy_placement> strategies;
  static constexpr const char* about_type =
      "each strategy's ratio with and without memmove's copy cliff (docs/placement.md)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "plain glibc");
    field(s.twin, "twin", "`glibc_nocliff`");
    field(s.baseline_copy_cliff_cost, "baseline_copy_cliff_cost",
          "std p50 with the cliff ÷ std p50 without it");
    field(s.placement_driven, "placement_driven", "the placement-driven strategies' names");
    field(s.strategies, "strategies", "each strategy");
  }
};

// The peer check's verdicts (results/peer_verdict.cpp) are the stage's: model/peers.hpp.
using model::best_cell;
using model::peer_result;
using model::peer_verdict;

struct batch_workload_figures {
  std::optional<lab::footprint> footprint;
  std::optional<model::size_histogram> size_histogram;
  std::optional<placement_analysis> placement;
  std::vector<peer_verdict> peer_verdicts;
  static constexpr const char* about_type = "a lab workload (the batch frame)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.footprint, "footprint", "the tracking pass over one iteration (null without one)");
    field(s.size_histogram, "size_histogram", "seed 003's figure for one iteration's requests");
    field(s.placement, "placement",
          "with a placement twin: each strategy's ratio with and without the copy cliff");
    field(s.peer_verdicts, "peer_verdicts", "one per malloc of the cells");
  }
};

// A workload's batch figures, or null when another frame measured it.
inline const batch_workload_figures* batch_figures_of(const model::workload& w) {
  return w.figures.as<batch_workload_figures>();
}

}  // namespace alloclab::lab
