// The memory frame's own figures in results.json (model/frame_part.hpp): per cell the budget or
// huge-page figures over its processes, per workload its spec. Each struct names its fields once
// (model/fields.hpp); docs/memory.md explains the workloads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"
#include "model/values.hpp"

namespace alloclab::lab {

struct budget_event {
  double t_ms = 0;
  std::string kind, from, to;
  std::uint64_t usage_bytes = 0;
  std::optional<std::uint64_t> usage_after_bytes;
  double fraction = 0;
  bool purged = false;
  static constexpr const char* about_type = "one thing the watcher or the service did";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.t_ms, "t_ms", "on the series clock", model::at_least(0));
    field(s.kind, "kind",
          "`crossing` (the watcher changed level `from` → `to`) or `service_purge` (the service "
          "purged at its quiescent point because the watcher was not `normal`)",
          model::one_of{"crossing", "service_purge"});
    field(s.from, "from", "level before", model::one_of{"normal", "soft", "hard"});
    field(s.to, "to", "level after", model::one_of{"normal", "soft", "hard"});
    field(s.usage_bytes, "usage_bytes", "usage when it happened");
    field(s.usage_after_bytes, "usage_after_bytes", "service purges: usage after it",
          model::may_be_absent);
    field(s.fraction, "fraction", "usage ÷ budget", model::at_least(0));
    field(s.purged, "purged", "crossings: the watcher purged the malloc and that succeeded");
  }
};

// The budget's settings as the worker ran them: the cell's are its first process's.
struct budget_settings {
  std::uint64_t budget_bytes = 0;
  std::string budget_source, budget_reason, usage_source;
  double soft_fraction = 0, hard_fraction = 0;
  std::uint64_t usage_at_start_bytes = 0, room_bytes = 0, cycles_per_repetition = 0;
  bool watcher = false;
  std::int64_t watcher_period_ms = 0;
  std::string purge_method;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.budget_bytes, "budget_bytes", "the budget", model::at_least(1));
    field(s.budget_source, "budget_source",
          "`caller limit` for `--memory-budget` or the default; `cgroup v2`/`cgroup v1` when "
          "the limit is the cgroup's",
          model::one_of{"cgroup v2", "cgroup v1", "caller limit", "none"});
    field(s.budget_reason, "budget_reason", "why that source", model::may_be_absent);
    field(s.usage_source, "usage_source", "RSS, or the cgroup usage file", model::may_be_absent);
    field(s.soft_fraction, "soft_fraction", "0.9", model::may_be_absent);
    field(s.hard_fraction, "hard_fraction", "0.97", model::may_be_absent);
    field(s.usage_at_start_bytes, "usage_at_start_bytes", "usage when the bursts began",
          model::may_be_absent);
    field(s.room_bytes, "room_bytes", "budget − usage at start: the bursts grow to 90–105 % of it",
          model::may_be_absent);
    field(s.cycles_per_repetition, "cycles_per_repetition", "burst cycles per repetition",
          model::may_be_absent);
    field(s.watcher, "watcher", "a budget watcher ran (true for `budget_trim`)");
    field(s.watcher_period_ms, "watcher_period_ms", "its sampling period", model::may_be_absent);
    field(s.purge_method, "purge_method", "what a purge called", model::may_be_absent);
  }
};

// What the watcher, the service and the kernel counted: a worker's own, summed over a cell's
// processes.
struct budget_counts {
  std::uint64_t crossings = 0, watcher_purges = 0, service_purges = 0, minor_faults = 0,
                major_faults = 0;
  void add(const budget_counts& other) {
    crossings += other.crossings;
    watcher_purges += other.watcher_purges;
    service_purges += other.service_purges;
    minor_faults += other.minor_faults;
    major_faults += other.major_faults;
  }
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.crossings, "crossings", "summed over processes");
    field(s.watcher_purges, "watcher_purges", "summed over processes");
    field(s.service_purges, "service_purges", "summed over processes");
    field(s.minor_faults, "minor_faults", "summed over processes", model::may_be_absent);
    field(s.major_faults, "major_faults", "summed over processes", model::may_be_absent);
  }
};

struct budget_figures : budget_settings, budget_counts {
  std::uint64_t peak_usage_bytes = 0;
  double peak_fraction = 0;
  std::vector<double> peak_usage_per_repetition, time_over_soft_ms_per_repetition;
  double time_over_soft_share = 0;
  std::vector<double> time_over_soft_share_per_repetition;
  std::vector<budget_event> events;
  bool events_dropped = false;
  std::size_t events_process = 0;
  static constexpr const char* about_type = "`budget_bursts` against its memory budget";
  template <class S, class F>
  static void fields(S& s, F& field) {
    budget_settings::fields(s, field);
    field(s.peak_usage_bytes, "peak_usage_bytes",
          "highest 10 ms sample of the usage over every repetition and process");
    field(s.peak_fraction, "peak_fraction", "the same ÷ budget", model::at_least(0));
    field(s.peak_usage_per_repetition, "peak_usage_per_repetition", "per repetition",
          model::may_be_absent);
    field(s.time_over_soft_ms_per_repetition, "time_over_soft_ms_per_repetition",
          "time at or above the soft threshold, per repetition", model::may_be_absent);
    field(s.time_over_soft_share, "time_over_soft_share",
          "median over repetitions of the share of the repetition at or above the soft "
          "threshold",
          model::at_least(0), model::at_most(1));
    field(s.time_over_soft_share_per_repetition, "time_over_soft_share_per_repetition",
          "per repetition", model::may_be_absent);
    field(s.events, "events", "the first process's, in order");
    field(s.events_dropped, "events_dropped", "more events happened than were kept",
          model::may_be_absent);
    field(s.events_process, "events_process", "0: the events are the first process's",
          model::may_be_absent);
    budget_counts::fields(s, field);
  }
};

// What one `budget_bursts` worker process reports (its record's `details`; transport between the
// worker and the parent, not results.json): the per-repetition figures of its own repetitions.
struct budget_reading : budget_settings, budget_counts {
  std::vector<double> time_over_soft_ms, time_over_soft_share, peak_usage_bytes;
  std::vector<budget_event> events;
  bool events_dropped = false;
  std::uint64_t checksum = 0;
  template <class S, class F>
  static void fields(S& s, F& field) {
    budget_settings::fields(s, field);
    field(s.time_over_soft_ms, "time_over_soft_ms", "per repetition");
    field(s.time_over_soft_share, "time_over_soft_share", "per repetition");
    field(s.peak_usage_bytes, "peak_usage_bytes", "per repetition");
    field(s.events, "events", "in order");
    field(s.events_dropped, "events_dropped", "more events happened than were kept");
    budget_counts::fields(s, field);
    field(s.checksum, "checksum", "the service's blocks");
  }
};

// What one process found of its table (the cell's: its first process's, but for the fields of
// huge_page_figures that it takes over every process).
struct huge_table_facts {
  std::uint64_t table_bytes = 0;
  std::string backing, thp_mode;
  bool advised = false, fell_back = false;
  std::uint64_t huge_backed_bytes = 0;
  double huge_backed_share = 0, fill_ms = 0;
  std::uint64_t fill_minor_faults = 0, fill_major_faults = 0, access_minor_faults = 0,
                accesses_per_repetition = 0;
  std::optional<std::uint64_t> dtlb_load_misses;
  std::optional<std::string> dtlb_load_misses_note;
  // The fields up to the huge-backed share, then the rest: huge_page_figures puts its own between.
  template <class S, class F>
  static void backing_fields(S& s, F& field) {
    field(s.table_bytes, "table_bytes", "the table's size", model::at_least(1));
    field(s.backing, "backing",
          "what backed it; starts `FELL BACK` when huge pages were asked for and THP is "
          "`never`/unavailable or madvise failed");
    field(s.thp_mode, "thp_mode", "the THP setting",
          model::one_of{"always", "madvise", "never", "unavailable"});
    field(s.advised, "advised", "madvise(MADV_HUGEPAGE) took");
    field(s.fell_back, "fell_back", "huge pages were asked for and not given");
    field(s.huge_backed_bytes, "huge_backed_bytes",
          "smaps `AnonHugePages` of the table after filling it (first process)");
    field(s.huge_backed_share, "huge_backed_share", "the same ÷ table_bytes", model::may_be_absent);
  }
  template <class S, class F>
  static void cost_fields(S& s, F& field) {
    field(s.fill_ms, "fill_ms", "time to fill the table", model::may_be_absent);
    field(s.fill_minor_faults, "fill_minor_faults", "mean over processes");
    field(s.fill_major_faults, "fill_major_faults", "first process", model::may_be_absent);
    field(s.access_minor_faults, "access_minor_faults", "first process", model::may_be_absent);
    field(s.accesses_per_repetition, "accesses_per_repetition", "random read-modify-writes",
          model::may_be_absent);
    field(s.dtlb_load_misses, "dtlb_load_misses",
          "null when the hardware counter is not available");
    field(s.dtlb_load_misses_note, "dtlb_load_misses_note",
          "\"not available: ...\" and why, or null");
  }
};

struct huge_page_figures : huge_table_facts {
  double huge_backed_share_lowest = 0;
  static constexpr const char* about_type = "`huge_table`: a table in huge pages or small ones";
  template <class S, class F>
  static void fields(S& s, F& field) {
    huge_table_facts::backing_fields(s, field);
    field(s.huge_backed_share_lowest, "huge_backed_share_lowest", "lowest over the processes",
          model::at_least(0), model::at_most(1));
    huge_table_facts::cost_fields(s, field);
  }
};

// What one `huge_table` worker process reports (its record's `details`; transport, not
// results.json): its own facts (its fill_minor_faults are its own) and its checksum.
struct huge_table_reading : huge_table_facts {
  std::uint64_t checksum = 0;
  template <class S, class F>
  static void fields(S& s, F& field) {
    huge_table_facts::backing_fields(s, field);
    huge_table_facts::cost_fields(s, field);
    field(s.checksum, "checksum", "of the table's accesses");
  }
};

struct strategy_cost {
  std::string strategy;
  std::optional<model::estimate> throughput_ratio;
  std::string method;
  static constexpr const char* about_type =
      "against the workload's first strategy under the same malloc";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "the first strategy");
    field(s.throughput_ratio, "throughput_ratio",
          "mean time per sample of the first strategy ÷ this cell's, 95 % bootstrap interval "
          "over repetitions");
    field(s.method, "method", "the same in words");
  }
};

struct memory_frame_figures {
  std::string kind;
  std::vector<double> repetition_seconds;
  std::optional<budget_figures> budget;
  std::optional<huge_page_figures> huge_pages;
  std::optional<strategy_cost> vs_first_strategy;
  model::rss_series rss_series;
  static constexpr const char* about_type =
      "a sample is one request of the service (32 block operations; the request after a shrink "
      "includes the service's purge) or one batch of 4096 table accesses, so `timing` holds "
      "per-request (per-batch) percentiles";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.kind, "kind", "which workload's figures", model::one_of{"budget", "huge_pages"});
    field(s.repetition_seconds, "repetition_seconds", "every repetition of every process",
          model::at_least(0));
    field(s.budget, "budget", "budget_bursts");
    field(s.huge_pages, "huge_pages", "huge_table");
    field(s.vs_first_strategy, "vs_first_strategy", "null for the first strategy");
    field(s.rss_series, "rss_series", "the first process's");
  }
};

struct memory_cell_figures {
  std::optional<memory_frame_figures> memory_frame;
  static constexpr const char* about_type = "a memory-frame cell";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.memory_frame, "memory_frame", "the workload's figures; null without a number");
  }
};

struct memory_workload_spec {
  model::omittable<std::uint64_t> budget_bytes;
  model::omittable<std::string> budget_source;
  model::omittable<bool> budget_from_cgroup;
  model::omittable<std::uint64_t> table_bytes;
  std::size_t repetitions = 0;
  static constexpr const char* about_type =
      "`budget_bursts` has the budget's keys, `huge_table` its table's";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.budget_bytes, "budget_bytes", "budget_bursts: the budget", model::at_least(1));
    field(s.budget_source, "budget_source",
          "budget_bursts: `--memory-budget`, `default (...)`, or the cgroup reason");
    field(s.budget_from_cgroup, "budget_from_cgroup", "budget_bursts: the cgroup's limit");
    field(s.table_bytes, "table_bytes", "huge_table: the table's size", model::at_least(1));
    field(s.repetitions, "repetitions", "repetitions over all processes", model::at_least(1));
  }
};

struct memory_workload_figures {
  memory_workload_spec memory_spec;
  static constexpr const char* about_type =
      "a memory workload (docs/memory.md): `baseline` is {its first strategy, the first "
      "malloc}; one cell per (malloc, strategy); `huge_table` runs under the first malloc only";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.memory_spec, "memory_spec", "the workload's settings");
  }
};

}  // namespace alloclab::lab
