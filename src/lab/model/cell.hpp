// The results model's cells and workloads: what every frame's cell and workload has (identity,
// proofs, timing, the comparison with the baseline cell), plus the frame's own figures (a
// model::figures, whose type lives in frames/<frame>/). Docs: docs/results-schema.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/frame_part.hpp"
#include "model/simulated.hpp"
#include "model/values.hpp"

namespace alloclab::lab::model {

struct symbol_proof {
  std::string symbol, expected_owner, owner_path;
  bool found = false, ok = false;
  static constexpr const char* about_type =
      "an allocator-specific symbol and the object that owns it";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.symbol, "symbol", "the symbol looked up");
    field(s.expected_owner, "expected_owner", "the library that must define it");
    field(s.owner_path, "owner_path", "`dladdr` of the symbol");
    field(s.found, "found", "the symbol resolved");
    field(s.ok, "ok", "it resolved into the expected library");
  }
};

struct liveness_proof {
  std::string expected, expected_owner, malloc_owner_path, free_owner_path;
  bool malloc_owner_ok = false;
  std::vector<symbol_proof> proofs;
  bool proof_symbol_found = false;
  std::vector<std::string> env_mismatch;
  bool ok = false;
  std::string detail;
  static constexpr const char* about_type =
      "the liveness proof of the (first) process that measured the cell; under sanitizers `ok` "
      "is false: ASan owns malloc";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.expected, "expected", "the malloc the cell asked for");
    field(s.expected_owner, "expected_owner", "the library that must own malloc and free");
    field(s.malloc_owner_path, "malloc_owner_path", "`dladdr` of the resolved `malloc`");
    field(s.free_owner_path, "free_owner_path", "`dladdr` of the resolved `free`");
    field(s.malloc_owner_ok, "malloc_owner_ok", "malloc and free are the expected library's");
    field(s.proofs, "proofs", "allocator-specific symbols with their owners");
    field(s.proof_symbol_found, "proof_symbol_found", "an allocator-specific symbol resolved");
    field(s.env_mismatch, "env_mismatch", "tuning variables the malloc needs that were absent");
    field(s.ok, "ok", "the malloc is proven live");
    field(s.detail, "detail", "the proof in words");
  }
};

struct worker_exit {
  std::string exit;
  std::optional<int> exit_code, signal;
  bool timed_out = false;
  double wall_seconds = 0;
  std::string stderr_tail;
  static constexpr const char* about_type = "how the cell's isolated process ended";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.exit, "exit",
          "e.g. `exit status 0`, `killed by signal 6 (SIGABRT)`, `timed out after 1.0 s "
          "(killed)`");
    field(s.exit_code, "exit_code", "its exit status, null when it did not exit");
    field(s.signal, "signal", "the signal that ended it, or null", at_least(1));
    field(s.timed_out, "timed_out", "it ran past --cell-timeout and was killed");
    field(s.wall_seconds, "wall_seconds", "its wall time", at_least(0));
    field(s.stderr_tail, "stderr_tail", "the last 4 KiB of its stderr; empty for `ok` cells");
  }
};

// Mean, median, spread of the per-repetition means: Google Benchmark's aggregates of a cell.
struct repetition_summary {
  double mean_ns = 0, median_ns = 0, stddev_ns = 0, cv = 0;
  static constexpr const char* about_type =
      "the per-repetition means summarised over the repetitions (what `alloclab export --format "
      "gbench` writes as the `_mean`, `_median`, `_stddev` and `_cv` aggregates)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mean_ns, "mean_ns", "mean of `repetition_means_ns`", at_least(0));
    field(s.median_ns, "median_ns", "median of `repetition_means_ns`", at_least(0));
    field(s.stddev_ns, "stddev_ns", "their sample standard deviation (n − 1)", at_least(0));
    field(s.cv, "cv", "stddev ÷ mean, a fraction", at_least(0));
  }
};

struct timing {
  std::size_t samples = 0, iterations_per_sample = 1;
  std::uint64_t timed_iterations = 0;
  double min_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0, mean_ns = 0;
  double stddev_ns = 0, cv = 0, jitter_ns = 0, throughput_per_s = 0;
  std::vector<double> repetition_medians_ns, repetition_p99_ns, repetition_means_ns, repetition_cv;
  repetition_summary repetition_means_summary;
  static constexpr const char* about_type =
      "percentiles interpolate linearly between order statistics over every repetition's "
      "samples; the per-repetition figures are what the intervals are computed from";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.samples, "samples", "timed samples over every repetition", at_least(1));
    field(s.iterations_per_sample, "iterations_per_sample",
          "iterations per sample (the batch size)", at_least(1));
    field(s.timed_iterations, "timed_iterations", "iterations timed in all", at_least(1));
    field(s.min_ns, "min_ns", "fastest sample", at_least(0));
    field(s.p50_ns, "p50_ns", "median sample", at_least(0));
    field(s.p90_ns, "p90_ns", "90th percentile", at_least(0));
    field(s.p99_ns, "p99_ns", "99th percentile", at_least(0));
    field(s.p999_ns, "p999_ns", "99.9th percentile", at_least(0));
    field(s.max_ns, "max_ns", "slowest sample", at_least(0));
    field(s.mean_ns, "mean_ns", "mean sample", at_least(0));
    field(s.stddev_ns, "stddev_ns", "sample standard deviation (n − 1)", at_least(0));
    field(s.cv, "cv", "stddev ÷ mean, a fraction", at_least(0));
    field(s.jitter_ns, "jitter_ns", "p99 − p50: the headline determinism figure", at_least(0));
    field(s.throughput_per_s, "throughput_per_s", "1e9 ÷ mean", at_least(0));
    field(s.repetition_medians_ns, "repetition_medians_ns",
          "one median per repetition (the input of the U test)", at_least(0));
    field(s.repetition_p99_ns, "repetition_p99_ns", "one p99 per repetition", at_least(0));
    field(s.repetition_means_ns, "repetition_means_ns", "one mean per repetition", at_least(0),
          may_be_absent);
    field(s.repetition_cv, "repetition_cv", "one CV per repetition", at_least(0), may_be_absent);
    field(s.repetition_means_summary, "repetition_means_summary",
          "the per-repetition means summarised (schema version 7; computed when a version 6 "
          "file is read)",
          may_be_absent);
  }
};

struct os_figures {
  double minor_faults_per_1000_iterations = 0;
  std::int64_t peak_rss_growth_kib = 0;
  static constexpr const char* about_type = "what the operating system saw while the cell ran";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.minor_faults_per_1000_iterations, "minor_faults_per_1000_iterations",
          "minor page faults during the timed passes, per 1000 iterations", at_least(0));
    field(s.peak_rss_growth_kib, "peak_rss_growth_kib",
          "growth of the process high-water mark (`ru_maxrss`) while the cell ran", at_least(0));
  }
};

struct comparison_intervals {
  double confidence = 0.95;
  std::string method;
  std::optional<interval> speedup_p50, speedup_mean, p99_ratio, jitter_ratio, cv_ratio,
      throughput_ratio;
  omittable<std::optional<interval>> speedup_ns_per_pair;
  static constexpr const char* about_type =
      "per ratio a percentile-bootstrap interval (2000 resamples of each side's per-repetition "
      "figure, independently; ratio of medians), or null";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.confidence, "confidence", "0.95", at_least(0), at_most(1));
    field(s.method, "method", "how the intervals were formed");
    field(s.speedup_p50, "speedup_p50", "interval of `speedup_p50`");
    field(s.speedup_mean, "speedup_mean", "interval of `speedup_mean`");
    field(s.p99_ratio, "p99_ratio", "interval of `p99_ratio`");
    field(s.jitter_ratio, "jitter_ratio", "interval of `jitter_ratio`");
    field(s.cv_ratio, "cv_ratio", "interval of `cv_ratio`");
    field(s.throughput_ratio, "throughput_ratio", "interval of `throughput_ratio`");
    field(s.speedup_ns_per_pair, "speedup_ns_per_pair",
          "interval of `speedup_ns_per_pair` (heap-study cells only)");
  }
};

// A cell against its workload's baseline cell ("std" below). Each ratio is taken between the two
// sides' median per-repetition figure and is > 1 when the cell is better.
struct comparison {
  std::optional<double> speedup_p50, speedup_mean, p99_ratio, jitter_ratio, cv_ratio,
      throughput_ratio;
  omittable<std::optional<double>> speedup_ns_per_pair;
  comparison_intervals intervals;
  double mann_whitney_u = 0, p_value = 1;
  bool exact_test = false, significant = false;
  std::string mark;
  static constexpr const char* about_type =
      "comparison with the workload's `baseline` cell (std below): each ratio is between the two "
      "sides' median per-repetition figure (version 5) and is > 1 when the cell is better; null "
      "on a zero denominator. It can differ slightly from the ratio of the pooled "
      "`timing.p50_ns` and always lies in its interval";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.speedup_p50, "speedup_p50", "std p50 ÷ cell p50");
    field(s.speedup_mean, "speedup_mean", "std mean ÷ cell mean");
    field(s.p99_ratio, "p99_ratio", "std p99 ÷ cell p99");
    field(s.jitter_ratio, "jitter_ratio", "std jitter ÷ cell jitter");
    field(s.cv_ratio, "cv_ratio", "std CV ÷ cell CV");
    field(s.throughput_ratio, "throughput_ratio", "cell throughput ÷ std throughput");
    field(s.speedup_ns_per_pair, "speedup_ns_per_pair",
          "heap-study cells only: the baseline malloc's mean ns per malloc+free pair ÷ the "
          "cell's (NOOP subtracted)");
    field(s.intervals, "intervals", "the ratios' intervals");
    field(s.mann_whitney_u, "mann_whitney_u", "U of the baseline's repetition medians",
          at_least(0));
    field(s.p_value, "p_value",
          "two-sided; exact permutation distribution without ties up to 25 repetitions, else "
          "the tie-corrected normal approximation with continuity correction",
          at_least(0));
    field(s.exact_test, "exact_test", "the exact distribution was used");
    field(s.significant, "significant", "p < alpha and enough repetitions");
    field(s.mark, "mark", "`**` p < 0.01, `*` p < 0.05, `n.s.`, `?` too few repetitions",
          one_of{"**", "*", "n.s.", "?"});
  }
};

// Every cell's identity and proofs: the lab's cells and the serve frame's alike.
struct cell_head {
  std::string strategy, malloc, status;
  std::optional<std::string> reason, warning;
  std::uint64_t buffer_bytes = 0;
  std::size_t processes = 0;
  bool placement_twin = false;
  std::optional<liveness_proof> live_allocator;
  std::optional<worker_exit> worker;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "strategy name (`malloc` for heap and trace cells)");
    field(s.malloc, "malloc", "the process-wide malloc it ran under (a `config.mallocs` entry)");
    field(s.status, "status",
          "`ok`; `overflowed` (an arena touched the heap or ran out: numbers withheld); "
          "`not_applicable` (e.g. a node pool for a workload with large requests); "
          "`not_installed` (the malloc's library is missing: no worker started); `refused` (the "
          "worker could not prove the malloc live, so printed no number); `failed` (the worker "
          "crashed, was killed, timed out, printed no valid document, or built a different "
          "checksum)",
          one_of{"ok", "overflowed", "not_applicable", "not_installed", "refused", "failed"});
    field(s.reason, "reason", "why there is no number");
    field(s.warning, "warning",
          "shown next to the number: the deliberate `pmr_monotonic_undersized` fallbacks, a huge "
          "table that fell back to small pages");
    field(s.buffer_bytes, "buffer_bytes", "the strategy's own buffer, 0 if none");
    field(s.processes, "processes",
          "fresh processes the cell was measured in (its repetitions were shared out over them)");
    field(s.placement_twin, "placement_twin",
          "measured under `config.placement_twin`; renderers show it only in the placement "
          "section");
    field(s.live_allocator, "live_allocator", "the malloc's liveness proof");
    field(s.worker, "worker", "cells measured in an isolated process: how it ended");
  }
};

struct cell {
  cell_head head;
  std::optional<model::timing> timing;
  std::optional<os_figures> os;
  std::optional<comparison> vs_std;
  omittable<simulated_cost> simulated;
  model::figures figures;  // the frame's own (frames/<frame>/figures.hpp)
  static constexpr const char* about_type =
      "one per cell of the workload; the keys of its frame's own figures sit beside these";
  template <class S, class F>
  static void fields(S& s, F& field) {
    cell_head::fields(s.head, field);
    field(s.timing, "timing", "null unless `status` is `ok`");
    field(s.os, "os", "batch and heap cells with a number");
    field(s.vs_std, "vs_std",
          "comparison with the workload's `baseline` cell; null for the baseline itself and for "
          "untimed cells");
    field(s.simulated, "simulated",
          "batch and heap cells of a run that simulated: the noise-free second opinion "
          "([docs/simulated-cost.md](simulated-cost.md))");
  }
};

struct workload {
  std::string name, description, kind, frame, checksum;
  std::size_t batch_size = 1;
  bool batched = false;
  cell_ref baseline;
  std::vector<cell> cells;
  model::figures figures;  // the frame's own (frames/<frame>/figures.hpp)
  static constexpr const char* about_type = "one entry per workload, in suite order";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.name, "name", "see `alloclab list`");
    field(s.description, "description", "see `alloclab list`");
    field(s.kind, "kind",
          "`lab` (workload × in-process strategy × malloc), `heap` (a heap-study kernel; one "
          "cell per malloc, strategy `malloc`), `memory` (a memory-frame workload) or `trace` (a "
          "recorded trace)");
    field(s.frame, "frame", "the frame that measured its cells");
    field(s.checksum, "checksum",
          "hex checksum of one iteration's result (heap: of a whole run); every strategy and "
          "malloc reproduced it (a cell that did not is a `failed` row); empty when the frame "
          "has none");
    field(s.batch_size, "batch_size", "iterations per timed sample (1 unless batched)",
          at_least(1));
    field(s.batched, "batched", "`batch_size > 1`: percentiles are of batch means");
    field(s.baseline, "baseline", "the cell every `vs_std` is computed against");
    field(s.cells, "cells",
          "lab: one per (malloc, strategy), mallocs in `config.mallocs` order then the "
          "placement twin, strategies in `config.strategies` order; other frames: see their "
          "keys");
  }
};

// A cell's JSON is its fields and its frame's; a workload reads its cells' frame figures through
// its frame's row (model/document.cpp).
template <>
struct codec<cell> {
  static json write(const cell& c);
  static void read(const json& j, cell& c, const std::string& where);  // without its figures
  static json schema();                                                // without any frame's
  static std::string type_text() { return "object"; }
  static std::string describe(doc_sink& sink, const std::string& path);
};
template <>
struct codec<workload> {
  static json write(const workload& w);
  static void read(const json& j, workload& w, const std::string& where);
  static json schema();
  static std::string type_text() { return "object"; }
  static std::string describe(doc_sink& sink, const std::string& path);
};

}  // namespace alloclab::lab::model
