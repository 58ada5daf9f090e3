// Retention over an allocator's decay horizon (seed 004: "glibc rarely returns freed memory to
// the OS; jemalloc and mimalloc do"). jemalloc and mimalloc return memory on a timer, and
// jemalloc without its background thread only when the program calls into it: one reading 1 s
// after the last free of an idle process cannot tell. A timeline worker grows the heap with seed
// 003's FIFO kernel, every page written (a service writes the memory it asks for), frees it all,
// then watches RSS for `horizon` seconds, either idle or under light continued allocation (a
// service keeps serving), with jemalloc's background thread off or on.
//
// RSS counts pages freed with MADV_FREE (mimalloc's way) until the kernel needs them; those are
// given back, lazily: /proc/self/smaps_rollup's LazyFree says how many, and `kept_unreclaimable`
// leaves them out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/size_distribution.hpp"
#include "model/fields.hpp"

namespace alloclab::lab::model {

// A size distribution in JSON: its name.
template <>
struct codec<heap::size_dist> {
  static json write(heap::size_dist d) { return std::string(heap::to_string(d)); }
  static void read(const json& j, heap::size_dist& d, const std::string& where) {
    if (!j.is_string()) detail::wrong_type(j, "a distribution's name", where);
    const auto parsed = heap::parse_size_dist(j.get<std::string>());
    if (!parsed) throw model_error(where + ": unknown distribution " + j.dump());
    d = *parsed;
  }
  static json schema() {
    return {{"type", "string"}, {"enum", {"uniform", "exponential", "lognormal"}}};
  }
  static std::string type_text() { return "string"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

}  // namespace alloclab::lab::model

namespace alloclab::heap {

// One timeline's spec. Its one field list gives the worker's spec (to_json,
// retention_spec_from_json) and results.json's `retention_timelines.timelines[].spec`
// (frames/heap/retention_figures.hpp).
struct retention_spec {
  std::string malloc_name = "glibc";  // registry name
  size_dist dist = size_dist::uniform;
  bool light_load = false;         // false: idle after the last free
  bool background_thread = false;  // jemalloc: MALLOC_CONF=background_thread:true (read back)
  double horizon_s = 12;
  std::size_t iterations = 12;  // FIFO batches of 100 before the drain (10 fill the ring of 1000)
  std::uint64_t seed = 42;
  template <class S, class F>
  static void fields(S& s, F& field) {
    using lab::model::at_least;
    field(s.malloc_name, "malloc", "the registry name of its malloc");
    field(s.dist, "dist", "the FIFO's size distribution");
    field(s.light_load, "light_load", "light allocation after the last free (false: idle)");
    field(s.background_thread, "background_thread",
          "jemalloc: `MALLOC_CONF=background_thread:true` (read back)");
    field(s.horizon_s, "horizon_s", "seconds watched after the last free", at_least(0));
    field(s.iterations, "iterations", "FIFO batches of 100 before the drain", at_least(1));
    field(s.seed, "seed", "the sizes' seed");
  }
};

struct retention_reading {
  double t_s = 0, rss_bytes = 0, lazy_free_bytes = 0;
  std::optional<double> kept, kept_unreclaimable;
  static constexpr const char* about_type = "one reading after the last free";
  template <class S, class F>
  static void fields(S& s, F& field) {
    using lab::model::at_least;
    using lab::model::at_most;
    field(s.t_s, "t_s", "seconds after the last free", at_least(0));
    field(s.rss_bytes, "rss_bytes", "VmRSS", at_least(0));
    field(s.lazy_free_bytes, "lazy_free_bytes", "LazyFree of `smaps_rollup` (MADV_FREE pages)",
          at_least(0));
    field(s.kept, "kept",
          "(rss − baseline) ÷ (peak − baseline), clamped to [0, 1]; null without growth",
          at_least(0), at_most(1));
    field(s.kept_unreclaimable, "kept_unreclaimable", "the same less LazyFree", at_least(0),
          at_most(1));
  }
};

struct retention_timeline_figures {
  std::vector<retention_reading> timeline;
  double baseline_rss_bytes = 0, peak_rss_bytes = 0;
  std::optional<double> kept, kept_unreclaimable;
  std::optional<std::string> background_thread;
  static constexpr const char* about_type = "a timeline's readings, as its worker measured them";
  template <class S, class F>
  static void fields(S& s, F& field) {
    using lab::model::at_least;
    using lab::model::at_most;
    field(s.timeline, "timeline", "the readings, in time order");
    field(s.baseline_rss_bytes, "baseline_rss_bytes", "VmRSS before the FIFO ran", at_least(0));
    field(s.peak_rss_bytes, "peak_rss_bytes", "VmHWM after the drain", at_least(0));
    field(s.kept, "kept", "`kept` at the horizon", at_least(0), at_most(1));
    field(s.kept_unreclaimable, "kept_unreclaimable", "`kept_unreclaimable` at the horizon",
          at_least(0), at_most(1));
    field(s.background_thread, "background_thread",
          "jemalloc's `background_thread` as it read it back (null for other mallocs)");
  }
};

// What a timeline worker writes: its readings under `retention`.
struct retention_worker_result {
  retention_timeline_figures retention;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.retention, "retention", "the timeline's readings");
  }
};

nlohmann::json to_json(const retention_spec& s);
// Throws std::invalid_argument on a bad spec.
retention_spec retention_spec_from_json(const nlohmann::json& j);

// Seconds after the last free at which RSS is read, up to and including `horizon_s`.
std::vector<double> retention_sample_times(double horizon_s);

// The worker's measurement in this process (its malloc already proven).
retention_timeline_figures measure_retention(const retention_spec& spec);

// Share of the growth (peak - baseline) still resident: `rss - lazy - baseline` over it, clamped
// to [0, 1]; none when there was no growth.
std::optional<double> kept_share(double rss, double lazy, double baseline, double peak);

// "LazyFree:  123 kB" in /proc/self/smaps_rollup, in bytes (0 when absent).
double parse_lazy_free(const std::string& smaps_rollup);

}  // namespace alloclab::heap
