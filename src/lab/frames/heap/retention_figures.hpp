// The heap frame's retention timelines in results.json (`retention_timelines`): how much of a
// drained FIFO's heap growth each malloc keeps resident over time, idle and under light
// allocation. Each struct names its fields once (model/fields.hpp).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frames/heap/retention_timeline.hpp"
#include "model/cell.hpp"
#include "model/fields.hpp"

namespace alloclab::lab {

// A timeline worker's spec as results.json holds it: its mode, then the spec's own fields.
struct retention_timeline_spec {
  std::string mode = "retention";
  heap::retention_spec spec;
  static constexpr const char* about_type = "what its worker was asked to measure";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.mode, "mode", "the worker's mode", model::one_of{"retention"});
    heap::retention_spec::fields(s.spec, field);
  }
};

using heap::retention_reading;
using heap::retention_timeline_figures;

struct retention_timeline_run {
  retention_timeline_spec spec;
  std::string status;
  std::optional<std::string> reason;
  std::optional<model::liveness_proof> live_allocator;
  std::optional<retention_timeline_figures> retention;
  static constexpr const char* about_type = "one timeline, as its worker measured it";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.spec, "spec", "what it measured");
    field(s.status, "status", "`ok`, or why it has no figures",
          model::one_of{"ok", "failed", "refused", "not_installed"});
    field(s.reason, "reason", "why it is not `ok`");
    field(s.live_allocator, "live_allocator", "its worker's liveness proof");
    field(s.retention, "retention", "its readings (null unless `ok`)");
  }
};

struct kept_at_horizon {
  std::optional<double> kept, kept_unreclaimable;
  static constexpr const char* about_type = "a workload's shares at the horizon";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.kept, "kept", "`kept`", model::at_least(0), model::at_most(1));
    field(s.kept_unreclaimable, "kept_unreclaimable", "`kept_unreclaimable`", model::at_least(0),
          model::at_most(1));
  }
};

struct retention_variant {
  std::string malloc, load;
  bool background_thread = false;
  std::map<std::string, kept_at_horizon> workloads;
  std::vector<std::string> failures;
  std::optional<double> median_kept, median_kept_unreclaimable;
  static constexpr const char* about_type = "one malloc variant under one load";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.malloc, "malloc", "the malloc");
    field(s.background_thread, "background_thread", "jemalloc's background thread on");
    field(s.load, "load", "after the last free", model::one_of{"idle", "light"});
    field(s.workloads, "workloads", "`fifo_<dist>` → its shares at the horizon");
    field(s.failures, "failures", "`workload: reason` of each timeline without figures");
    field(s.median_kept, "median_kept", "median `kept` over the workloads", model::at_least(0),
          model::at_most(1));
    field(s.median_kept_unreclaimable, "median_kept_unreclaimable",
          "median `kept_unreclaimable` over the workloads", model::at_least(0), model::at_most(1));
  }
};

struct retention_timelines_figures {
  double horizon_s = 0;
  std::string figure;
  std::vector<retention_variant> variants;
  std::vector<retention_timeline_run> timelines;
  static constexpr const char* about_type =
      "the heap frame's retention timelines (`--retention-horizon`)";
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.horizon_s, "horizon_s", "seconds each timeline watched after the last free",
          model::at_least(0));
    field(s.figure, "figure", "what `kept` means");
    field(s.variants, "variants", "per malloc, background thread and load");
    field(s.timelines, "timelines", "each timeline as its worker measured it");
  }
};

}  // namespace alloclab::lab
