// report.md's closing sections, shared by every report: how the run measured (Method) and on
// what machine (Environment).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "render/frame_report.hpp"
#include "model/document.hpp"
#include "render/placement_text.hpp"
#include "text/plural.hpp"

namespace alloclab::lab::markdown {

namespace {

bool in_lockstep(const model::budget_facts* budget) {
  return budget != nullptr && std::any_of(budget->comparisons.begin(), budget->comparisons.end(),
                                          [](const model::budget_comparison& c) {
                                            return c.paired_runs.value_or(0) > 0;
                                          });
}

// What a pair is and what "the same" means, when the stop rule judged paired readings.
void pairing_lines(std::string& md, const model::budget_facts& budget) {
  std::size_t paired = 0, same = 0;
  double margin = 0;
  for (const model::budget_comparison& c : budget.comparisons) {
    paired += c.paired_runs.value_or(0) > 0;
    same += c.verdict.value_or("") == "the same within the margin";
    margin = std::max(margin, c.margin.value_or(0.0));
  }
  if (paired == 0) return;
  md += fmt::format(
      "- **Pairs.** The cells of one workload (every strategy and malloc of it, in the batch or "
      "the heap frame) run as one lockstep ring: each cell in a fresh process of its own, all "
      "started together, pinned to one CPU, and only one of them timing at any moment: a "
      "coordinator hands a token round the ring, in a fresh random order each cycle, and each "
      "holder times one repetition (its own warm-up first). Repetition k of every cell lies in "
      "cycle k, so base ÷ candidate of repetition k is a paired reading: both sides met the "
      "machine in the same state (a neighbour's load, the host's slow level). A comparison's "
      "interval is over its per-repetition ratios, grouped by ring run (a ring run is the unit: "
      "each fresh process lands its buffers elsewhere), with the run-to-run variance moderated "
      "toward the workload's other pairs; {} of {} comparisons stood on pairs, and the tables "
      "above show those intervals, the ones their verdicts came from.\n",
      paired, budget.comparisons.size());
  if (margin > 0)
    md += fmt::format(
        "- **Equivalence.** A comparison against 1 is decided when its interval lies wholly above "
        "or below 1, or wholly inside ±{:.0f} % ([{:.3f}, {:.3f}]): then the two are *the same "
        "within {:.0f} %* (two one-sided tests at the look's confidence), an answer, not an open "
        "question; {} comparisons ended so.\n",
        100 * margin, 1 / (1 + margin), 1 + margin, 100 * margin, same);
}

}  // namespace

void method_section(std::string& md, const model::document& r) {
  const model::timer_facts& t = r.timer;
  const model::run_config& cfg = r.config;
  md += "## Method\n\n";
  md += fmt::format(
      "- Timer: {} (clocksource {}), overhead {:.0f} ns per reading pair, resolution {:.0f} ns; "
      "iterations faster than {:.0f} ns are timed in fixed batches.\n",
      t.clock, r.environment.clocksource.value_or("unknown"), t.overhead_ns, t.resolution_ns,
      t.batch_threshold_ns);
  const bool any_lab = std::any_of(r.workloads.begin(), r.workloads.end(),
                                   [](const model::workload& w) { return is_lab(w); });
  for (const report_row& row : frame_reports())
    if (row.part.method_lines != nullptr) row.part.method_lines(md, r);
  if (!any_lab) {
    md += fmt::format(
        "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n\n",
        r.significance.test, r.significance.alpha, r.significance.smallest_possible_p);
    return;
  }
  const model::budget_facts* budget = r.budget && *r.budget ? &**r.budget : nullptr;
  const bool budgeted = budget != nullptr && budget->mode == "budget";
  const std::string sizes =
      budgeted ? fmt::format(
                     "Repetitions of {:.0f} ms of timed work each (samples per repetition sized "
                     "by time, after warm-up), 3 per process; 2 to 8 processes per cell, as the "
                     "stop rule asked (Budget, above)",
                     budget != nullptr ? budget->repetition_ms.value_or(0.0) : 0.0)
               : fmt::format(
                     "{} repetitions × {} timed samples per cell, after warm-up, spread "
                     "over {} per cell",
                     cfg.repetitions, cfg.samples_per_repetition,
                     counted(cfg.processes.value_or(1), "process", "processes"));
  md += fmt::format(
      "- {}. Every cell (workload × strategy × malloc) runs alone in fresh processes that "
      "prove their malloc live before measuring, so no heap history leaks in from another cell; "
      "{} (seed {}), so machine drift hits all cells alike. Each workload's batch size and "
      "reference checksum come from a calibration process of its own, with std, whatever else "
      "the run measures. Ratios are against the baseline cell (std under the run's first "
      "malloc).\n",
      sizes,
      in_lockstep(budget) ? "the processes of a workload's cells time their repetitions in "
                            "lockstep (Pairs, below), the workloads in rounds"
                          : "the cells' processes run one at a time in rounds, each round a "
                            "freshly shuffled order",
      cfg.seed);
  if (budget != nullptr) pairing_lines(md, *budget);
  md += fmt::format(
      "- Heap allocations come from a separate untimed pass of {} iterations with the global "
      "operator new counted; fallbacks are upstream allocations of the strategy's own buffer.\n",
      cfg.counted_iterations);
  md +=
      "- Arena and monotonic buffers are sized by a tracking pass (alloclab::tracking_resource "
      "monotonic "
      "footprint + 25 %); an arena that still touches the heap has its numbers withheld.\n";
  md += fmt::format(
      "- Build: {} with flags `{}` (the lab aligns loops to 64 bytes: with default alignment the "
      "same push_back loop ran 9 % apart under two allocators whose inner loops are identical).\n",
      r.environment.compiler, r.environment.cxx_flags);
  md +=
      "- Every iteration returns a checksum of what it built; all strategies must agree or the run "
      "fails.\n";
  md += fmt::format(
      "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n",
      r.significance.test, r.significance.alpha, r.significance.smallest_possible_p);
  md +=
      "- Jitter = p99 − p50 in ns is the determinism figure (seed 000, bug 3); CV is secondary. "
      "Faults: minor "
      "page faults during the timed passes.\n\n";
}

void environment_section(std::string& md, const model::document& r) {
  md += "## Environment\n\n" + table_head({text_column("key"), text_column("value")});
  // The model's own serialisation of the environment: every key, in key order.
  model::json environment = model::json::object();
  model::write_fields(r.environment, environment);
  for (const auto& [key, value] : environment.items()) {
    if (key == "placement") {  // the probe's figures are in results.json; its summary here
      md += fmt::format("| memmove placement probe | {} |\n",
                        placement_summary(r.environment.placement, r.config));
      continue;
    }
    md += fmt::format("| {} | {} |\n", key,
                      value.is_string() ? value.get<std::string>() : value.dump());
  }
  md += fmt::format("| command | `{}` |\n| created (UTC) | {} |\n| duration | {:.1f} s |\n\n",
                    r.command, r.created_utc, r.duration_seconds);
}

}  // namespace alloclab::lab::markdown
