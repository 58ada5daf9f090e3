// GET /metrics of `alloclab serve`: the Prometheus text exposition format (version 0.0.4),
// written by prometheus-cpp's TextSerializer (Debian prometheus-cpp-dev). Nothing is added to the
// request path for it: a scrape reads the server's lock-free counters (server_counters.hpp),
// /proc, the cgroup's files, the budget watcher's atomics and the malloc's own statistics
// (mallocs/allocator_stats.hpp, which takes the malloc's statistics lock once per scrape).
//
// Every family carries the served variant as labels: workload, strategy, malloc.
//
// | family                                     | type      | from                              |
// |--------------------------------------------|-----------|-----------------------------------|
// | alloclab_serve_requests_total              | counter   | responses written                 |
// | alloclab_serve_errors_total                | counter   | responses with status >= 400      |
// | alloclab_serve_busy_refusals_total         | counter   | 503s over the connection limit    |
// | alloclab_serve_runs_total{outcome}         | counter   | /run iterations: ok, failed       |
// | alloclab_serve_request_duration_seconds    | histogram | /run: request read -> answer sent |
// | alloclab_serve_workload_duration_seconds   | histogram | /run: inside the workload         |
// | process_cpu_seconds_total                  | counter   | getrusage, user + system          |
// | process_resident_memory_bytes              | gauge     | /proc/self/status VmRSS           |
// | alloclab_process_peak_resident_memory_bytes| gauge     | /proc/self/status VmHWM           |
// | alloclab_process_page_faults_total{kind}   | counter   | getrusage: minor, major           |
// | alloclab_cgroup_memory_current_bytes       | gauge     | memory.current (v1: usage_in_bytes), where readable |
// | alloclab_cgroup_memory_limit_bytes{file}   | gauge     | memory.max, memory.high (v1: limit_in_bytes), where finite |
// | alloclab_budget_level                      | gauge     | watcher: 0 normal, 1 soft, 2 hard |
// | alloclab_budget_limit_bytes                | gauge     | watcher's budget                  |
// | alloclab_budget_usage_bytes                | gauge     | watcher's last sample             |
// | alloclab_budget_samples_total              | counter   | watcher                           |
// | alloclab_budget_failed_samples_total       | counter   | watcher                           |
// | alloclab_budget_crossings_total            | counter   | watcher: level changes            |
// | alloclab_budget_purges_total               | counter   | watcher: purges that succeeded    |
// | alloclab_malloc_stat_bytes{allocator,stat} | gauge     | the malloc's statistics           |
//
// The budget families exist only under `serve --budget-watch`; the cgroup and malloc families
// only where readable. Histogram buckets: 4 per octave from 2^10 ns (1.02 us) to 2^30 ns
// (1.07 s), then +Inf; their edges are edges of the server's own histogram (16 per octave), so
// the counts are exact (a value exactly on an edge counts in the bucket above it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>

#include "http/latency_histogram.hpp"
#include "mallocs/allocator_stats.hpp"

namespace alloclab {
class budget_watcher;
struct memory_budget_options;
}  // namespace alloclab

namespace alloclab::lab::http {

struct server_counters;

struct variant_labels {
  std::string workload;
  std::string strategy;
  std::string malloc;
};

struct watcher_reading {
  int level = 0;  // budget_level as 0, 1, 2
  std::uint64_t limit = 0, usage = 0, samples = 0, failed_samples = 0, crossings = 0, purges = 0;
};

// Everything one scrape reads; optional parts are left out of the exposition when empty.
struct metrics_readings {
  std::uint64_t responses = 0, errors = 0, busy = 0, run_ok = 0, run_failed = 0;
  histogram_snapshot request_time, workload_time;
  double cpu_seconds = 0;
  std::optional<std::uint64_t> rss_bytes, peak_rss_bytes;
  std::uint64_t minor_faults = 0, major_faults = 0;
  std::optional<std::uint64_t> cgroup_current;
  std::vector<std::pair<std::string, std::uint64_t>> cgroup_limits;  // file name -> bytes
  std::optional<watcher_reading> watcher;
  std::string allocator;  // allocator_stats_reader::allocator()
  std::vector<mallocs::allocator_stat> malloc_stats;
};

// The families of one scrape, in the order of the table above.
std::vector<prometheus::MetricFamily> metric_families(const metrics_readings& readings,
                                                      const variant_labels& labels);
// The text exposition of `families`.
std::string exposition_text(const std::vector<prometheus::MetricFamily>& families);
// The exposition's media type, for the Content-Type header.
inline constexpr const char* exposition_content_type = "text/plain; version=0.0.4; charset=utf-8";

// What a server reads at each scrape. The cgroup and the malloc are found once, at construction.
class metrics_source {
 public:
  // `watcher` may be null; it and `counters` must outlive the source. `cgroup` is where the
  // cgroup files are looked for (tests point it at fixtures).
  metrics_source(const server_counters& counters, const alloclab::budget_watcher* watcher,
                 const alloclab::memory_budget_options& cgroup);
  metrics_readings read() const;

 private:
  const server_counters& counters_;
  const alloclab::budget_watcher* watcher_;
  std::optional<std::string> usage_file_;
  std::vector<std::pair<std::string, std::uint64_t>> limits_;
  mallocs::allocator_stats_reader malloc_;
};

}  // namespace alloclab::lab::http
