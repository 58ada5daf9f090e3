// `alloclab trace info`: what a recorded program's allocations look like. One pass over the trace
// in file order (threads interleave chunk by chunk, so for multi-threaded programs the live-byte
// figures are exact per chunk, not per event; a free that precedes its allocation in file order is
// counted when the allocation appears).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/log2_histogram.hpp"
#include "trace/live_interleavings.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {

using lab::log2_bucket;
using lab::log2_histogram;

struct thread_summary {
  std::uint32_t thread = 0;
  std::uint64_t os_tid = 0;
  std::uint64_t events = 0;  ///< calls (time and thread events excluded)
  std::uint64_t allocations = 0;
  std::uint64_t frees = 0;
  std::uint64_t cross_thread_frees = 0;  ///< frees of blocks another thread allocated
  std::uint64_t bytes_allocated = 0;
};

/// Blocks one thread allocated and another freed: a hand-off from producer to consumer.
struct handoff {
  std::uint32_t from = 0;  ///< the allocating thread
  std::uint32_t to = 0;    ///< the freeing thread
  std::uint64_t blocks = 0;
};

/// A stretch of the run with one character: growing, releasing, steady or idle.
struct phase {
  std::uint64_t begin_us = 0;
  std::uint64_t end_us = 0;
  std::string character;
  std::uint64_t allocations = 0;
  std::int64_t live_change = 0;  ///< bytes
  std::uint64_t calls = 0;
};

/// Distance of the trace's log2 size histogram from one of seed 003's distributions.
struct resemblance {
  std::string distribution;
  double total_variation = 0;  ///< 0 = same shape, 1 = disjoint
};

struct trace_summary {
  std::array<std::uint64_t, event_kind_count> by_kind{};
  std::vector<thread_summary> threads;
  std::uint64_t allocations = 0;  ///< blocks created (realloc included)
  std::uint64_t frees = 0;        ///< blocks released (free, and realloc of a block)
  std::uint64_t cross_thread_frees = 0;
  std::uint64_t unknown_pointer_calls = 0;  ///< free/realloc/usable_size of unseen pointers
  std::uint64_t bytes_allocated = 0;
  std::uint64_t monotonic_footprint = 0;  ///< sum of sizes rounded up to 16: a bump arena's use
  /// The one definition of a trace's peak live bytes (its "ideal RSS"), used by `trace info`,
  /// the replay's results and `advise`: the peak in recorded time order (interleavings below).
  std::uint64_t peak_live_bytes = 0;
  /// The peak under each interleaving of the threads the recording allows.
  interleaving_peaks interleavings;
  std::vector<handoff> handoffs;  ///< per (allocating, freeing) thread pair, most blocks first
  std::uint64_t final_live_bytes = 0;
  std::uint64_t final_live_blocks = 0;
  std::uint64_t duration_us = 0;
  std::uint64_t peak_rss_bytes = 0;  ///< largest RSS sample (0 without samples)
  log2_histogram sizes{};
  log2_histogram lifetimes{};        ///< in allocations made between allocation and free
  std::uint64_t freed_youngest = 0;  ///< frees of the most recently allocated live block (LIFO)
  std::uint64_t freed_oldest = 0;    ///< frees of the least recently allocated live block (FIFO)
  std::uint64_t frees_before_allocation = 0;  ///< cross-thread frees ahead of their allocation
  std::vector<resemblance> resemblances;      ///< nearest first
  std::vector<phase> phases;                  ///< empty without timestamps
  /// Live bytes after every `curve_stride`-th allocation or free (when asked for).
  std::vector<std::uint64_t> live_curve;
};

struct summary_options {
  std::size_t curve_stride = 0;    ///< 0 = no live curve
  std::size_t phase_windows = 20;  ///< time windows merged into phases
};

trace_summary summarize(const trace_file& trace, const summary_options& options = {});

/// The `trace info` report (plain text, one section per figure).
std::string render_summary(const trace_file& trace, const trace_summary& s);
/// The list of process images recorded with `trace` (record --follow-exec, --follow-fork): each
/// trace's pid, how it started, its calls and command; empty when there are no others.
std::string render_images(const std::string& trace);

}  // namespace alloclab::trace
