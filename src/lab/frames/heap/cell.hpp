// One heap-study cell: (process-wide malloc) x (kernel) x (size distribution).
//
// In the worker process: prove the allocator is live, precompute sizes, run the NOOP baseline
// and the malloc kernel `repetitions` times, take the memory figures, purge, and print one JSON
// document. In the parent: start that worker with the allocator's LD_PRELOAD/environment and
// turn whatever happens into a cell_outcome (never an exception).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "frames/heap/kernels.hpp"
#include "process/measuring_worker.hpp"
#include "process/worker_main.hpp"
#include "workloads/size_distribution.hpp"

namespace alloclab::heap {

inline constexpr const char* cell_schema = "alloclab.heap.cell/1";

struct cell_spec {
  std::string malloc_name =
      "glibc";          ///< registry name, or custom_malloc_name; must be the live allocator
  std::string preload;  ///< custom_malloc_name only: the library's path (validate_preload first)
  kernel_kind kernel = kernel_kind::fifo;
  size_dist dist = size_dist::uniform;
  std::size_t iterations = 1000;  ///< batches per repetition
  std::size_t repetitions = 1;    ///< noop+malloc pairs, in that order, in this process
  std::uint64_t seed = 1;
  kernel_config config{};  ///< JSON "touch": "once" (default, seed 003) or "every_page"
  size_dist_params dist_params{};
  bool keep_samples = true;  ///< include per-batch samples in the JSON
  bool settle =
      true;  ///< read RSS 100 ms and 1 s after the last free (a budgeted run: first process)
};

nlohmann::json to_json(const cell_spec& s);
/// Throws std::invalid_argument on unknown names or out-of-range numbers.
cell_spec cell_spec_from_json(const nlohmann::json& j);

struct memory_figures {
  std::uint64_t baseline_rss_bytes = 0;          ///< VmRSS before the first malloc run
  std::uint64_t peak_rss_bytes = 0;              ///< VmHWM after the runs
  bool peak_was_reset = false;                   ///< VmHWM reset before the runs (else: since exec)
  std::uint64_t rss_after_free_bytes = 0;        ///< VmRSS with every block freed (0 ms)
  std::uint64_t rss_100ms_after_free_bytes = 0;  ///< VmRSS 100 ms after the last free
  std::uint64_t rss_1s_after_free_bytes = 0;     ///< VmRSS 1 s after the last free (settled)
  std::uint64_t rss_after_purge_bytes = 0;       ///< VmRSS after the allocator's purge (after 1 s)
  bool settled = false;                          ///< the 100 ms and 1 s readings were taken
  mallocs::purge_result purge;
  std::uint64_t minor_faults = 0;  ///< during the runs (noop runs fault ~nothing)
  std::uint64_t major_faults = 0;
  double fragmentation = 0;      ///< peak RSS / peak live bytes (the issue's definition)
  double fragmentation_net = 0;  ///< (peak RSS - baseline RSS) / peak live bytes
  process::rss_series series;    ///< RSS (and cgroup usage) sampled through the whole cell
  double last_free_ms = 0;       ///< series time of the last free
  double purge_ms = 0;           ///< series time of the purge call
};

/// Settle times after the last free at which RSS is read (before the purge).
inline constexpr std::chrono::milliseconds retention_delays[] = {std::chrono::milliseconds(100),
                                                                 std::chrono::milliseconds(1000)};

struct cell_result {
  cell_spec spec;
  mallocs::live_allocator live;
  bool measured = false;                 ///< false: allocator not proven live; no numbers below
  std::vector<double> ns_per_pair_reps;  ///< (t_malloc - t_noop) / pairs, per repetition
  double ns_per_pair = 0;                ///< mean of ns_per_pair_reps
  std::uint64_t pairs_per_rep = 0;
  std::uint64_t peak_live_bytes = 0;
  std::uint64_t total_bytes_per_rep = 0;
  std::uint64_t checksum = 0;    ///< identical in every repetition (checked)
  std::vector<double> batch_ns;  ///< malloc runs, all repetitions, raw per-batch ns
  std::vector<double> noop_batch_ns;
  std::vector<std::uint64_t> size_histogram_log2;  ///< the sizes drawn (stats/log2_histogram)
  memory_figures memory;
};

/// Runs a cell in this process. Returns measured == false (and no numbers) when the live
/// allocator is not spec.malloc_name. Throws std::runtime_error if repetitions disagree on the
/// checksum, std::invalid_argument on a bad spec.
cell_result run_cell(const cell_spec& spec);

nlohmann::json to_json(const cell_result& r);

/// The worker's cell in its simulation mode (frames/heap/simulation.cpp): `warmup_batches` of the
/// malloc kernel, then spec.iterations batches of the NOOP kernel and of the malloc kernel, each
/// a counted region (simulate/region.hpp).
process::worker_cell simulated_worker_cell(const cell_spec& spec, std::size_t warmup_batches);

/// The worker side (process/worker_main.hpp): parses `spec_json`, proves the malloc, runs the
/// cell, prints one JSON document on `out`. Returns 0, worker_exit_refused or
/// worker_exit_bad_spec. Diagnostics go to `err`; `before_measuring` (may be empty) is called
/// with the cell's id before the proof.
int heap_worker_main(std::string_view spec_json, std::ostream& out, std::ostream& err,
                     const std::function<void(const std::string&)>& before_measuring = {});

}  // namespace alloclab::heap
