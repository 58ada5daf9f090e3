// The one record every executor returns: one cell (workload x strategy x malloc, in one frame)
// measured in one fresh process. Executors only fill records; the results builder is the only
// code that turns them into results JSON. Adding a frame adds its figures struct here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/measurement.hpp"
#include "records/serve_readings.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab {

// Batch frame: a lab workload's iterations timed in a loop (see measure/runner.hpp).
struct batch_figures {
  std::size_t batch_size = 1;  // iterations per timed sample
  workload_footprint footprint;
  cell_measurement cell;  // samples, counted pass, faults; cell.checksum is one iteration's
};

// Heap frame: a seed-003 kernel under the process-wide malloc (see heap/cell.hpp).
struct heap_figures {
  std::size_t iterations_per_repetition = 0;  // batches of 100 pairs
  std::vector<double> batch_ns;               // raw per-batch times, every repetition
  std::vector<double> ns_per_pair_reps;       // NOOP-subtracted, one per repetition
  std::uint64_t pairs_per_repetition = 0;
  std::uint64_t peak_live_bytes = 0;
  std::uint64_t total_bytes_per_repetition = 0;
  std::uint64_t checksum = 0;
  std::vector<std::uint64_t> size_histogram_log2;  // the kernel's sizes (stats/log2_histogram)
  double noop_batch_p50_ns = 0;
  nlohmann::json memory;  // the worker's memory figures (heap::memory_figures as JSON)
};

// Memory frame: a memory workload over time (see memory/memory_workloads.hpp).
struct memory_figures {
  std::vector<double> repetition_seconds;  // wall time of each repetition
  std::vector<double> samples_ns;          // per request (budget) or batch of accesses (table)
  std::vector<std::size_t> samples_per_repetition;
  std::size_t operations_per_sample = 1;
  nlohmann::json rss_series;  // heap::rss_series as JSON, through the whole process
  nlohmann::json details;     // the workload's own figures (budget events, huge-page coverage)
};

// Serve frame: one fresh `alloclab serve` process per repetition, driven by hey, wrk and the
// open-loop ladder (see frames/serve/executor.cpp); each generator's run as it was read
// (records/serve_readings.hpp), written by the results model's codec.
struct serve_repetition {
  serve::load_result hey;                  // closed loop, seed 004's shape (-c 50, fixed duration)
  std::optional<serve::load_result> wrk;   // closed loop, the second generator; none: hey alone
  std::vector<serve::load_result> ladder;  // open loop, one result per target rate, ascending
  double saturation_rps = 0;  // closed-loop throughput the ladder's rates are fractions of
  serve::server_stats stats;  // the server's /stats after the last generator
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.hey, "hey", "hey's run");
    field(s.wrk, "wrk", "wrk's run, or null");
    field(s.ladder, "ladder", "the open-loop runs");
    field(s.saturation_rps, "saturation_rps", "what the ladder's rates are fractions of");
    field(s.stats, "stats", "the server's counters");
  }
};
// For nlohmann's generated serializers of serve_figures and the record (found by ADL); a
// repetition that is not one throws nlohmann's exception, as the rest of the record does.
inline void to_json(nlohmann::json& j, const serve_repetition& r) {
  j = model::write_json(r);
}
inline void from_json(const nlohmann::json& j, serve_repetition& r) {
  try {
    r = model::read_json<serve_repetition>(j, "/serve/repetitions");
  } catch (const model::model_error& e) {
    throw nlohmann::json::other_error::create(501, e.what(), &j);
  }
}

struct serve_figures {
  std::string pinning;  // what ran on which CPU
  double duration_s = 0;
  unsigned connections = 0;
  std::vector<serve_repetition> repetitions;
};

// Replay frame: whole replays of a recorded trace, in one process (see executors/replay_executor).
struct replay_figures {
  std::vector<double> ns_per_call;  // per repetition: call time / calls (waits excluded)
  // per repetition: replayed program time (calls and modelled program work) / calls
  std::vector<double> program_ns_per_call;
  std::vector<double> call_seconds;  // per repetition, summed over the replay's threads
  std::vector<double> wall_seconds;  // per repetition
  std::uint64_t calls = 0;           // per repetition
  std::uint64_t skipped = 0;         // per repetition: unknown pointers, recorded failures
  std::uint64_t threads = 0;
  std::uint64_t peak_live_bytes = 0;  // the trace's "ideal RSS"
  nlohmann::json memory;              // RSS readings of the process's first replay
};

struct measurement_record {
  std::string frame;  // plan's to_string(frame)
  std::string workload;
  std::string strategy;
  std::string malloc;    // malloc_choice::label
  std::size_t part = 0;  // which of the cell's processes
  std::string status;    // ok | overflowed | not_applicable | failed | refused | not_installed
  std::string reason;    // why there is no number; empty when status is ok
  nlohmann::json live_allocator;  // the worker's proof of its malloc (null when none)
  nlohmann::json worker;          // exit status, signal, timeout, wall time of the process
  std::optional<batch_figures> batch;
  std::optional<heap_figures> heap;
  std::optional<memory_figures> memory;
  std::optional<serve_figures> serve;
  std::optional<replay_figures> replay;
};

// Field lists for nlohmann's generated serializers (found by ADL), for the worker -> parent
// transport.
NLOHMANN_JSON_SERIALIZE_ENUM(cell_status, {{cell_status::ok, "ok"},
                                           {cell_status::overflowed, "overflowed"},
                                           {cell_status::not_applicable, "not_applicable"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(workload_footprint, allocations, bytes_requested, peak_bytes,
                                   peak_blocks, largest_request, monotonic_footprint,
                                   suggested_arena_bytes, size_histogram_log2)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(clock_profile, overhead_ns, resolution_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(
    cell_measurement, strategy, status, reason, warning, samples_ns, repetition_medians_ns,
    repetition_p99_ns, repetition_means_ns, repetition_cv, repetition_reference_before_ns,
    repetition_reference_after_ns, repetition_memory_reference_before_ns,
    repetition_memory_reference_after_ns, heap_allocations_per_iteration, heap_bytes_per_iteration,
    upstream_fallbacks_per_iteration, minor_faults, peak_rss_growth_kib, timed_iterations,
    buffer_bytes, checksum, residues)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(batch_figures, batch_size, footprint, cell)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(heap_figures, iterations_per_repetition, batch_ns,
                                   ns_per_pair_reps, pairs_per_repetition, peak_live_bytes,
                                   total_bytes_per_repetition, checksum, size_histogram_log2,
                                   noop_batch_p50_ns, memory)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(memory_figures, repetition_seconds, samples_ns,
                                   samples_per_repetition, operations_per_sample, rss_series,
                                   details)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(serve_figures, pinning, duration_s, connections, repetitions)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(replay_figures, ns_per_call, program_ns_per_call, call_seconds,
                                   wall_seconds, calls, skipped, threads, peak_live_bytes, memory)

// Worker -> parent transport (not results JSON). Throws nlohmann::json::exception on a
// document that is not a record.
nlohmann::json to_json(const measurement_record& record);
measurement_record record_from_json(const nlohmann::json& j);

}  // namespace alloclab::lab
