// Small value types of the results model that several places and frames share: an interval, a
// ratio estimate with its interval, a spread over processes, a workload's baseline cell, seed 003's
// size histogram. Each names its fields once (model/fields.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/fields.hpp"

namespace alloclab::lab::model {

struct interval {
  double low = 0, high = 0;
  static constexpr const char* about_type = "a 95 % percentile-bootstrap interval of a ratio";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.low, "low", "lower end", at_least(0));
    field(s.high, "high", "upper end", at_least(0));
  }
};

// A ratio with its interval (null when none could be formed).
struct estimate {
  double value = 0;
  std::optional<model::interval> interval;
  static constexpr const char* about_type = "a ratio and its 95 % interval over repetitions";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.value, "value", "the ratio (> 1 favours the candidate)", at_least(0));
    field(s.interval, "interval", "its 95 % percentile-bootstrap interval, null without one");
  }
};

// The median and range of one reading over a cell's processes.
struct spread {
  std::uint64_t median = 0, min = 0, max = 0;
  static constexpr const char* about_type = "median, min and max over the cell's processes";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.median, "median", "median over the processes");
    field(s.min, "min", "smallest");
    field(s.max, "max", "largest");
  }
};

// The same over a fraction (no rounding to bytes).
struct fraction_spread {
  double median = 0, min = 0, max = 0;
  static constexpr const char* about_type = "median, min and max of a fraction";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.median, "median", "median");
    field(s.min, "min", "smallest");
    field(s.max, "max", "largest");
  }
};

struct cell_ref {
  std::string strategy, malloc;
  static constexpr const char* about_type =
      "the baseline cell every `vs_std` of the workload is computed against: `std` (heap and "
      "trace: `malloc`; memory: the first strategy) under the run's first malloc";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.strategy, "strategy", "its strategy");
    field(s.malloc, "malloc", "its malloc");
  }
};

struct size_histogram {
  std::vector<std::uint64_t> bands;
  std::string band_rule;
  std::string source;
  static constexpr const char* about_type =
      "seed 003's figure: requests per log2 size band, trailing empty bands dropped";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.bands, "bands",
          "bands[k] counts requests of a size in [2^k, 2^(k+1)) bytes (band 0 also counts 0)");
    field(s.band_rule, "band_rule", "the rule above, in words");
    field(s.source, "source",
          "where the sizes come from (a lab workload's tracking pass over std, or a heap "
          "kernel's precomputed sizes)");
  }
};

struct purge_call {
  std::string method;
  bool available = false;
  int rc = 0;
  static constexpr const char* about_type = "the live malloc's own purge call";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.method, "method", "what was called, e.g. `glibc malloc_trim(0)`; `none` and why");
    field(s.available, "available", "a purge entry point of the live malloc was found and called");
    field(s.rc, "rc", "0 when it reported success, 1 when it reported an error");
  }
};

// RSS (and the cgroup's usage) sampled through one process, as columns.
struct rss_series {
  double period_ms = 0;
  std::optional<std::string> cgroup_file;
  std::vector<double> t_ms;
  std::vector<std::uint64_t> rss_bytes;
  std::optional<std::vector<std::optional<std::int64_t>>> cgroup_bytes;
  std::size_t process = 0;
  omittable<double> last_free_ms, purge_ms;
  static constexpr const char* about_type =
      "the first process's VmRSS from `/proc/self/statm` and, where readable, its cgroup's usage "
      "file, every `period_ms` through the cell, as columns; the period doubles each time 2048 "
      "points fill up; the cgroup figure counts every process in the cgroup";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.period_ms, "period_ms", "the final sampling period");
    field(s.cgroup_file, "cgroup_file",
          "v2 `memory.current`, else v1 `memory.usage_in_bytes`; null when none is readable");
    field(s.t_ms, "t_ms", "sample times since the sampler started", at_least(0));
    field(s.rss_bytes, "rss_bytes", "VmRSS at each time");
    field(s.cgroup_bytes, "cgroup_bytes", "the cgroup's usage at each time (null: unreadable)",
          at_least(0));
    field(s.process, "process", "which of the cell's processes (0: the first)");
    field(s.last_free_ms, "last_free_ms", "heap cells: when the last block was freed", at_least(0));
    field(s.purge_ms, "purge_ms", "heap cells: when the purge was called", at_least(0));
  }
};

}  // namespace alloclab::lab::model
