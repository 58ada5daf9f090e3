// The heap frame's own figures in results.json (model/frame_part.hpp): per cell the memory figures
// and the cost per malloc+free pair; per workload the kernel's parameters; in the config the heap
// sizes; at the top the retention summary. Each struct names its fields once (model/fields.hpp);
// the ones the seed claims read add those figures (model/claim_figures.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frames/heap/retention_figures.hpp"
#include "model/claim_figures.hpp"
#include "model/fields.hpp"
#include "model/frame_part.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

// What one heap worker read of its memory (the worker document's `result.memory`); the results
// cell takes the medians over the cell's processes (heap_memory below).
struct heap_memory_reading {
  std::uint64_t baseline_rss_bytes = 0, peak_rss_bytes = 0;
  bool peak_was_reset = false;
  std::uint64_t rss_after_free_bytes = 0;
  model::omittable<std::uint64_t> rss_100ms_after_free_bytes, rss_1s_after_free_bytes;
  std::uint64_t rss_after_purge_bytes = 0;
  double last_free_ms = 0, purge_ms = 0;
  model::rss_series rss_series;
  model::purge_call purge;
  std::uint64_t minor_faults = 0, major_faults = 0;
  std::optional<double> fragmentation, fragmentation_net;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.baseline_rss_bytes, "baseline_rss_bytes", "VmRSS before the runs");
    field(s.peak_rss_bytes, "peak_rss_bytes", "VmHWM after the runs");
    field(s.peak_was_reset, "peak_was_reset", "VmHWM was reset before the runs");
    field(s.rss_after_free_bytes, "rss_after_free_bytes", "VmRSS with every block freed");
    field(s.rss_100ms_after_free_bytes, "rss_100ms_after_free_bytes",
          "100 ms after the last free; absent when the worker did not wait");
    field(s.rss_1s_after_free_bytes, "rss_1s_after_free_bytes", "1 s after it; the same");
    field(s.rss_after_purge_bytes, "rss_after_purge_bytes", "after the allocator's purge");
    field(s.last_free_ms, "last_free_ms", "series time of the last free");
    field(s.purge_ms, "purge_ms", "series time of the purge call");
    field(s.rss_series, "rss_series", "RSS through the process");
    field(s.purge, "purge", "the purge call");
    field(s.minor_faults, "minor_faults", "during the runs");
    field(s.major_faults, "major_faults", "during the runs");
    field(s.fragmentation, "fragmentation", "peak RSS ÷ peak live bytes; null when not finite");
    field(s.fragmentation_net, "fragmentation_net", "(peak − baseline RSS) ÷ peak live bytes");
  }
};

struct retention_figures {
  std::optional<double> after_free_0ms, after_free_100ms, after_free_1s, after_purge;
  static constexpr const char* about_type =
      "share of the cell's RSS growth (peak − baseline) still resident over time: the worker "
      "sleeps after the last free, reads VmRSS at each settle time and calls the purge after "
      "the 1 s reading, so `after_purge` is also 1 s + purge";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.after_free_0ms, "after_free_0ms", "right after the last free", model::at_least(0));
    field(s.after_free_100ms, "after_free_100ms", "100 ms after it", model::at_least(0));
    field(s.after_free_1s, "after_free_1s", "1 s after it (settled)", model::at_least(0));
    field(s.after_purge, "after_purge", "after the allocator's purge call", model::at_least(0));
  }
};

struct heap_memory {
  std::uint64_t baseline_rss_bytes = 0, peak_rss_bytes = 0;
  bool peak_was_reset = false;
  std::uint64_t rss_after_free_bytes = 0, rss_after_purge_bytes = 0, peak_live_bytes = 0;
  std::optional<double> fragmentation, fragmentation_net, retained_after_free, retained_after_purge;
  retention_figures retention;
  std::optional<model::rss_series> rss_series;
  model::purge_call purge;
  std::uint64_t minor_faults = 0, major_faults = 0;
  std::size_t processes = 0;
  static constexpr const char* about_type =
      "each figure the median over the cell's processes (`rss_series` from the first)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.baseline_rss_bytes, "baseline_rss_bytes", "VmRSS before the runs");
    field(s.peak_rss_bytes, "peak_rss_bytes", "VmHWM, reset before the runs when `peak_was_reset`");
    field(s.peak_was_reset, "peak_was_reset", "VmHWM was reset through `/proc/self/clear_refs`");
    field(s.rss_after_free_bytes, "rss_after_free_bytes", "VmRSS with every block freed");
    field(s.rss_after_purge_bytes, "rss_after_purge_bytes", "VmRSS after the allocator's purge");
    field(s.peak_live_bytes, "peak_live_bytes", "the workload's own peak of requested bytes alive");
    field(s.fragmentation, "fragmentation", "peak RSS ÷ peak live bytes", model::at_least(0));
    field(s.fragmentation_net, "fragmentation_net", "(peak RSS − baseline RSS) ÷ peak live bytes",
          model::at_least(0));
    field(s.retained_after_free, "retained_after_free",
          "(RSS − baseline) ÷ (peak − baseline) after the last free: a fraction of the growth "
          "still resident (null without growth; may exceed 1 slightly, since RSS can grow while "
          "freeing or purging)",
          model::at_least(0));
    field(s.retained_after_purge, "retained_after_purge", "the same after the purge",
          model::at_least(0));
    field(s.retention, "retention", "the same fraction over time", model::may_be_absent);
    field(s.rss_series, "rss_series", "RSS through the first process", model::may_be_absent);
    field(s.purge, "purge", "the purge call");
    field(s.minor_faults, "minor_faults", "getrusage over the runs");
    field(s.major_faults, "major_faults", "getrusage over the runs");
    field(s.processes, "processes", "the processes the medians are over", model::may_be_absent);
  }
};

struct pair_cost {
  double mean = 0;
  std::vector<double> per_repetition;
  std::uint64_t pairs_per_repetition = 0;
  double noop_batch_p50_ns = 0;
  std::uint64_t total_bytes_per_repetition = 0;
  static constexpr const char* about_type = "ns per malloc+free pair, the NOOP loop subtracted";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mean, "mean", "mean over repetitions (may be ≤ 0 when below the noise)");
    field(s.per_repetition, "per_repetition", "one figure per repetition");
    field(s.pairs_per_repetition, "pairs_per_repetition", "pairs per repetition",
          model::at_least(1));
    field(s.noop_batch_p50_ns, "noop_batch_p50_ns", "the NOOP loop's median batch",
          model::at_least(0));
    field(s.total_bytes_per_repetition, "total_bytes_per_repetition", "bytes requested");
  }
};

struct heap_cell_figures {
  std::optional<heap_memory> memory;
  std::optional<pair_cost> ns_per_pair;
  static constexpr const char* about_type =
      "a heap-study cell: an iteration is one batch (100 malloc+free pairs, the loop and one "
      "write per touched page, not baseline-subtracted), so `timing` holds per-batch "
      "percentiles, `os.minor_faults_per_1000_iterations` is per 1000 batches and "
      "`os.peak_rss_growth_kib` is peak − baseline RSS";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.memory, "memory", "what the malloc kept and gave back; null without a number");
    field(s.ns_per_pair, "ns_per_pair", "the cost per pair; null without a number");
  }
  // The ratio metric this frame adds to the comparisons: ns per pair per repetition.
  std::optional<model::repetition_series> series(const std::string& metric) const {
    if (metric != "speedup_ns_per_pair" || !ns_per_pair) return std::nullopt;
    return model::repetition_series{ns_per_pair->per_repetition, ns_per_pair->mean};
  }
  // What the returns_memory claims read: the retention shares of its memory figures.
  void add_claim_figures(model::claim_figures& into) const {
    if (!memory) return;
    model::for_each_present<double>(memory->retention, [&into](const char* key, double share) {
      into.retention.emplace(key, share);
    });
  }
};

struct heap_spec_figures {
  std::string kernel, dist;
  std::size_t iterations = 0, repetitions = 0;
  std::uint64_t seed = 0;
  std::size_t batch = 0, capacity = 0;
  std::string touch;
  std::size_t touch_stride = 0;
  double exponential_mean = 0, lognormal_mode = 0, lognormal_sigma = 0;
  model::omittable<bool> settle;
  static constexpr const char* about_type = "the kernel's parameters as the heap worker reads them";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.kernel, "kernel", "the kernel", model::one_of{"fifo", "lifo", "xthread"});
    field(s.dist, "dist", "the size distribution",
          model::one_of{"uniform", "exponential", "lognormal"});
    field(s.iterations, "iterations", "batches per repetition", model::at_least(1));
    field(s.repetitions, "repetitions", "repetitions", model::at_least(1));
    field(s.seed, "seed", "the sizes' seed");
    field(s.batch, "batch", "blocks allocated per batch", model::at_least(1));
    field(s.capacity, "capacity", "ring, stack or queue capacity", model::at_least(1));
    field(s.touch, "touch",
          "`once`: one write per block, seed 003's method and the default; `every_page`",
          model::one_of{"once", "every_page"}, model::may_be_absent);
    field(s.touch_stride, "touch_stride", "every_page: one write every this many bytes",
          model::at_least(1));
    field(s.exponential_mean, "exponential_mean", "size parameter", model::may_be_absent);
    field(s.lognormal_mode, "lognormal_mode", "size parameter", model::may_be_absent);
    field(s.lognormal_sigma, "lognormal_sigma", "size parameter", model::may_be_absent);
    field(s.settle, "settle",
          "the worker waits 1 s after the last free for the settled memory readings (a "
          "budgeted run's processes after the first do not); absent in files written before "
          "the time budget");
  }
};

struct heap_workload_figures {
  heap_spec_figures heap_spec;
  std::optional<model::size_histogram> size_histogram;
  static constexpr const char* about_type = "a heap-study workload (the heap frame)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.heap_spec, "heap_spec", "the kernel's parameters");
    field(s.size_histogram, "size_histogram", "seed 003's figure for the kernel's sizes");
  }
};

struct heap_sizes {
  std::size_t iterations = 0, repetitions = 0;
  std::string strategy = "malloc";
  static constexpr const char* about_type = "heap-study sizes";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.iterations, "iterations", "batches of 100 per repetition", model::at_least(1));
    field(s.repetitions, "repetitions", "repetitions", model::at_least(1));
    field(s.strategy, "strategy", "always `malloc`", model::one_of{"malloc"});
  }
};

struct heap_config_figures {
  heap_sizes heap;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.heap, "heap", "heap-study sizes, when heap workloads ran");
  }
  // The heap claims are judged only at the seed's scale of batches.
  void add_claim_figures(model::claim_figures& into) const {
    into.heap_iterations = heap.iterations;
  }
};

struct retention_row {
  std::string malloc;
  std::size_t workloads = 0;
  std::string purge_call;
  std::optional<model::fraction_spread> after_free_0ms, after_free_100ms, after_free_1s,
      after_purge;
  static constexpr const char* about_type =
      "per malloc: the median and range over the run's heap workloads of the cells' "
      "`memory.retention` figure (null when no cell has it)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "the malloc");
    field(s.workloads, "workloads", "heap cells with a figure right after the last free");
    field(s.purge_call, "purge_call", "its purge call");
    field(s.after_free_0ms, "after_free_0ms", "right after the last free");
    field(s.after_free_100ms, "after_free_100ms", "100 ms after it");
    field(s.after_free_1s, "after_free_1s", "1 s after it");
    field(s.after_purge, "after_purge", "after the purge");
  }
};

struct heap_document_figures {
  std::vector<retention_row> heap_retention;
  model::omittable<std::optional<retention_timelines_figures>> retention_timelines;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.heap_retention, "heap_retention",
          "the heap frame's retention summary, one object per malloc (empty when no heap cell "
          "measured its memory)");
    field(s.retention_timelines, "retention_timelines",
          "the retention timelines, null when none ran; absent in files written before them");
  }
  // The timeline claims read each variant's median share at the horizon.
  void add_claim_figures(model::claim_figures& into) const {
    if (!retention_timelines || !*retention_timelines) return;
    const retention_timelines_figures& t = **retention_timelines;
    model::retention_timeline_shares& shares = into.retention_timelines.emplace();
    shares.horizon_s = t.horizon_s;
    for (const retention_variant& v : t.variants)
      shares.variants.push_back(
          {v.malloc, v.load, v.background_thread, v.median_kept_unreclaimable});
  }
};

}  // namespace alloclab::lab
