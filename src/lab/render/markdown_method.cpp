// report.md's closing sections, shared by every report: how the run measured (Method) and on
// what machine (Environment).
#include <string>

#include <fmt/format.h>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "render/placement_text.hpp"

namespace alloclab::lab::markdown {

void method_section(std::string& md, const json& r) {
  const auto& t = r["timer"];
  const auto& cfg = r["config"];
  md += "## Method\n\n";
  md += fmt::format(
      "- Timer: {} (clocksource {}), overhead {:.0f} ns per reading pair, resolution {:.0f} ns; "
      "iterations faster than {:.0f} ns are timed in fixed batches.\n",
      t["clock"].get<std::string>(),
      r["environment"]["clocksource"].is_null()
          ? "unknown"
          : r["environment"]["clocksource"].get<std::string>(),
      t["overhead_ns"].get<double>(), t["resolution_ns"].get<double>(),
      t["batch_threshold_ns"].get<double>());
  bool any_lab = false, any_heap = false;
  for (const auto& w : r["workloads"]) {
    any_lab = any_lab || is_lab(w);
    any_heap = any_heap || is_heap(w);
  }
  if (any_heap) {
    const json& heap = cfg["heap"];
    md += fmt::format(
        "- Heap study: every (workload, malloc) cell runs alone in fresh worker processes ({} "
        "repetitions × {} batches, shared out over up to {} processes; each repetition a NOOP run "
        "then a malloc run of the same loop); a process's first repetition pays the page faults, "
        "later ones reuse what the allocator kept. Memory figures are medians over the "
        "processes. Time limit per process {:.0f} s.\n",
        heap.is_object() ? heap["repetitions"].get<std::size_t>() : 0,
        heap.is_object() ? heap["iterations"].get<std::size_t>() : 0,
        cfg.value("processes", std::size_t{1}), cfg.value("cell_timeout_seconds", 0.0));
    md +=
        "- Memory: `VmHWM` reset through `/proc/self/clear_refs` before the runs, `VmRSS` after "
        "every block "
        "was freed and again after the allocator's purge call (found with `dlsym` at run time); "
        "faults from "
        "`getrusage`. glibc_trim sets `MALLOC_TRIM_THRESHOLD_`, which also switches off glibc's "
        "dynamic mmap "
        "threshold.\n";
  }
  if (!any_lab) {
    md += fmt::format(
        "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n\n",
        r["significance"]["test"].get<std::string>(), r["significance"]["alpha"].get<double>(),
        r["significance"]["smallest_possible_p"].get<double>());
    return;
  }
  const json& budget = r.value("budget", json());
  const bool budgeted = budget.is_object() && budget.value("mode", "") == "budget";
  const std::string sizes =
      budgeted
          ? fmt::format(
                "Repetitions of {:.0f} ms of timed work each (samples per repetition sized "
                "by time, after warm-up), 3 per process; 2 to 8 processes per cell, as the "
                "stop rule asked (Budget, above)",
                budget["repetition_ms"].is_number() ? budget["repetition_ms"].get<double>() : 0.0)
          : fmt::format(
                "{} repetitions × {} timed samples per cell, after warm-up, spread "
                "over {} process(es) per cell",
                cfg["repetitions"].get<std::size_t>(),
                cfg["samples_per_repetition"].get<std::size_t>(),
                cfg.value("processes", std::size_t{1}));
  md += fmt::format(
      "- {}. Every cell (workload × strategy × malloc) runs alone in fresh processes that "
      "prove their malloc live before measuring, so no heap history leaks in from another cell; "
      "the cells' processes run one at a time in rounds, each round a freshly shuffled order "
      "(seed {}), so machine drift hits all cells alike. Each workload's batch size and "
      "reference checksum come from a calibration process of its own, with std, whatever else "
      "the run measures. Ratios are against the baseline cell (std under the run's first "
      "malloc).\n",
      sizes, cfg["seed"].get<std::uint64_t>());
  md += fmt::format(
      "- Heap allocations come from a separate untimed pass of {} iterations with the global "
      "operator new counted; fallbacks are upstream allocations of the strategy's own buffer.\n",
      cfg["counted_iterations"].get<std::size_t>());
  md +=
      "- Arena and monotonic buffers are sized by a tracking pass (alloclab::tracking_resource "
      "monotonic "
      "footprint + 25 %); an arena that still touches the heap has its numbers withheld.\n";
  md += fmt::format(
      "- Build: {} with flags `{}` (the lab aligns loops to 64 bytes: with default alignment the "
      "same push_back loop ran 9 % apart under two allocators whose inner loops are identical).\n",
      r["environment"]["compiler"].get<std::string>(),
      r["environment"]["cxx_flags"].get<std::string>());
  md +=
      "- Every iteration returns a checksum of what it built; all strategies must agree or the run "
      "fails.\n";
  md += fmt::format(
      "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n",
      r["significance"]["test"].get<std::string>(), r["significance"]["alpha"].get<double>(),
      r["significance"]["smallest_possible_p"].get<double>());
  md +=
      "- Jitter = p99 − p50 in ns is the determinism figure (seed 000, bug 3); CV is secondary. "
      "Faults: minor "
      "page faults during the timed passes.\n\n";
}

void environment_section(std::string& md, const json& r) {
  md += "## Environment\n\n" + table_head({text_column("key"), text_column("value")});
  for (const auto& [key, value] : r["environment"].items()) {
    if (key == "placement") {  // the probe's figures are in results.json; its summary here
      md +=
          fmt::format("| memmove placement probe | {} |\n", placement_summary(value, r["config"]));
      continue;
    }
    md += fmt::format("| {} | {} |\n", key,
                      value.is_string() ? value.get<std::string>() : value.dump());
  }
  md += fmt::format("| command | `{}` |\n| created (UTC) | {} |\n| duration | {:.1f} s |\n\n",
                    r["command"].get<std::string>(), r["created_utc"].get<std::string>(),
                    r["duration_seconds"].get<double>());
}

}  // namespace alloclab::lab::markdown
