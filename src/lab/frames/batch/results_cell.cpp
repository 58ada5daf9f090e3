#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "frames/batch/figures.hpp"
#include "frames/batch/process_figures.hpp"
#include "frames/batch/frame.hpp"
#include "model/cell.hpp"
#include "results/cell_parts.hpp"
#include "schedule/budget_account.hpp"
#include "results/peer_verdict.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

// The batch frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// The parts of a batch cell merged: samples and per-repetition figures concatenated, counts kept
// per iteration (the highest), faults summed. `residues`: the first process's that has them (the
// counted pass runs in a fresh process).
struct merged_parts {
  cell_measurement cell;
  json residues = nullptr;
  std::size_t batch = 1;
};

merged_parts merge(const cell_records& rs) {
  merged_parts m;
  cell_measurement& merged = m.cell;
  for (const auto* r : rs.parts) {
    const batch_figures* figures = r->figures.get<batch_figures>();
    if (figures == nullptr) continue;
    const cell_measurement& c = figures->cell;
    m.batch = figures->batch_size;
    if (merged.warning.empty()) merged.warning = c.warning;
    append(merged.samples_ns, c.samples_ns);
    append(merged.repetition_medians_ns, c.repetition_medians_ns);
    append(merged.repetition_p99_ns, c.repetition_p99_ns);
    append(merged.repetition_means_ns, c.repetition_means_ns);
    append(merged.repetition_cv, c.repetition_cv);
    append(merged.repetition_reference_before_ns, c.repetition_reference_before_ns);
    append(merged.repetition_reference_after_ns, c.repetition_reference_after_ns);
    append(merged.repetition_memory_reference_before_ns, c.repetition_memory_reference_before_ns);
    append(merged.repetition_memory_reference_after_ns, c.repetition_memory_reference_after_ns);
    merged.heap_allocations_per_iteration =
        std::max(merged.heap_allocations_per_iteration, c.heap_allocations_per_iteration);
    merged.heap_bytes_per_iteration =
        std::max(merged.heap_bytes_per_iteration, c.heap_bytes_per_iteration);
    merged.upstream_fallbacks_per_iteration =
        std::max(merged.upstream_fallbacks_per_iteration, c.upstream_fallbacks_per_iteration);
    merged.minor_faults += c.minor_faults;
    merged.peak_rss_growth_kib = std::max(merged.peak_rss_growth_kib, c.peak_rss_growth_kib);
    merged.timed_iterations += c.timed_iterations;
    merged.buffer_bytes = c.buffer_bytes;
    if (m.residues.is_null()) m.residues = c.residues;
  }
  return m;
}

model::os_figures os_of(const cell_measurement& merged) {
  model::os_figures os;
  os.minor_faults_per_1000_iterations = merged.timed_iterations
                                            ? 1000.0 * static_cast<double>(merged.minor_faults) /
                                                  static_cast<double>(merged.timed_iterations)
                                            : 0.0;
  os.peak_rss_growth_kib = merged.peak_rss_growth_kib;
  return os;
}

model::cell batch_cell(const cell_spec& spec, const cell_records& rs) {
  model::cell cell = cell_head(spec, rs);
  if (const measurement_record* bad = rs.broken();
      bad != nullptr && (bad->status != "not_applicable" || !bad->figures))
    return cell;
  const merged_parts m = merge(rs);
  const cell_measurement& merged = m.cell;
  cell.head.warning = text_or_null(merged.warning);
  cell.head.buffer_bytes = merged.buffer_bytes;
  if (cell.head.status == "not_applicable") return cell;
  batch_cell_figures figures;
  figures.heap =
      counted_pass{merged.heap_allocations_per_iteration, merged.heap_bytes_per_iteration};
  figures.upstream_fallbacks_per_iteration = merged.upstream_fallbacks_per_iteration;
  figures.placement = model::read_json<std::optional<address_residues>>(m.residues, "/placement");
  cell.figures = model::figures::of(std::move(figures));
  if (cell.head.status != "ok" || merged.samples_ns.empty()) return cell;
  cell.timing = timing_of(merged, m.batch);
  cell.os = os_of(merged);
  cell.figures.as<batch_cell_figures>()->contention_reference = contention_readings{
      merged.repetition_reference_before_ns, merged.repetition_reference_after_ns,
      merged.repetition_memory_reference_before_ns, merged.repetition_memory_reference_after_ns};
  return cell;
}

// The batch executor's per-workload calibrations (workload name -> calibration).
json calibrations_of(const run_records& run) {
  const json batch = run.frame_facts.value("batch", json::object());
  return batch.value("calibrations", json::object());
}

// The workload entry without its comparisons, placement analysis and peer verdicts.
model::workload lab_workload(const std::string& name, const run_plan& plan, const run_records& run,
                             std::vector<model::cell> cells) {
  const json calibration = calibrations_of(run).value(name, json(nullptr));
  model::workload w;
  w.name = name;
  w.description = find_workload(name)->description;
  w.kind = "lab";
  w.frame = "batch";
  w.baseline = {baseline_strategy, plan.mallocs.front().label};
  batch_workload_figures figures;
  if (!calibration.is_null()) {
    w.checksum = checksum_text(calibration.at("checksum").get<std::uint64_t>());
    w.batch_size = calibration.at("batch_size").get<std::size_t>();
    figures.footprint = model::read_json<footprint>(calibration.at("footprint"), "/footprint");
    figures.size_histogram =
        size_histogram_of(figures.footprint->size_histogram_log2,
                          "one iteration's requests, counted by a tracking pass over std");
  }
  w.batched = w.batch_size > 1;
  w.figures = model::figures::of(std::move(figures));
  w.cells = std::move(cells);
  return w;
}

// Two estimates disagree when their intervals do not overlap and they differ by over 15 %.
bool disagree(const ratio_estimate& a, const ratio_estimate& b) {
  const bool apart = a.range.valid() && b.range.valid() &&
                     (a.range.high < b.range.low || b.range.high < a.range.low);
  return apart && std::abs(std::log(a.value / b.value)) > std::log(1.15);
}

// Each strategy's ratio to the baseline strategy under plain glibc and under the twin without
// memmove's copy cliff. A ratio that changes when only the copy cliff changes is driven by where
// the blocks landed and what was copied, not by the allocator's own cost.
std::optional<placement_analysis> analyse_placement(const model::workload& workload,
                                                    const std::string& malloc,
                                                    const std::string& twin) {
  const model::cell* base = find_cell(workload, baseline_strategy, malloc);
  const model::cell* base_twin = find_cell(workload, baseline_strategy, twin);
  if (base == nullptr || base_twin == nullptr || !base->timing || !base_twin->timing)
    return std::nullopt;
  placement_analysis out;
  out.malloc = malloc;
  out.twin = twin;
  out.baseline_copy_cliff_cost = estimate_of(estimate_cell_ratio("speedup_p50", *base, *base_twin));
  for (const model::cell& cell : workload.cells) {
    const std::string& strategy = cell.head.strategy;
    if (cell.head.malloc != malloc || strategy == baseline_strategy) continue;
    const model::cell* other = find_cell(workload, strategy, twin);
    if (other == nullptr || !cell.timing || !other->timing) continue;
    const auto with = estimate_cell_ratio("speedup_p50", *base, cell);
    const auto without = estimate_cell_ratio("speedup_p50", *base_twin, *other);
    const bool placement_driven = with && without && disagree(*with, *without);
    if (placement_driven) out.placement_driven.push_back(strategy);
    out.strategies.push_back({strategy, estimate_of(with), estimate_of(without), placement_driven});
  }
  return out;
}

// The stop rule's peer comparisons of `workload` (a budgeted run), as the peer check reads them.
std::vector<peer_stop_interval> peer_intervals(const frame_results_input& in,
                                               const std::string& workload) {
  std::vector<peer_stop_interval> out;
  if (!in.run.budget) return out;
  for (const comparison_account& a : in.run.budget->comparisons) {
    const tracked_comparison& c = a.comparison;
    if (c.kind != "peer" || !a.ratio.bounded()) continue;
    const cell_spec& peer = in.plan.cells.at(c.base);
    const cell_spec& best = in.plan.cells.at(c.candidate);
    if (peer.workload != workload) continue;
    out.push_back({peer.malloc.label, best.strategy, peer.strategy, a.ratio.value, a.ratio.low,
                   a.ratio.high, c.margin, a.paired_runs});
  }
  return out;
}

}  // namespace

std::string describe_batch_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (workload x strategy x malloc) runs alone in {} fresh processes of its own, "
      "interleaved with the other cells; a number includes the workload's own work, page faults "
      "in the timed loop, buffer placement as that allocator chose it in a fresh process, and "
      "the proven live malloc; it does not depend on which other cells ran; a multi-threaded "
      "workload's figure also includes how often its threads ran at the same time, which other "
      "load on the machine lowers (the noise gate's others' CPUs; the simulation is paused for "
      "it)",
      plan.sizes.processes);
}

void add_batch_results(const frame_results_input& in, model::document& results) {
  if (!has_frame(in.plan, frame::batch)) return;
  const auto entry = [&in](const std::string& name, std::vector<model::cell> cells, const auto&) {
    return lab_workload(name, in.plan, in.run, std::move(cells));
  };
  const auto finish = [&in](model::workload& w) {
    add_comparisons(w, in.power);
    batch_workload_figures& figures = *w.figures.as<batch_workload_figures>();
    if (!in.plan.placement_twin.empty())
      figures.placement = analyse_placement(w, native_malloc, in.plan.placement_twin);
    figures.peer_verdicts = peer_verdicts(w, in.power, peer_intervals(in, w.name));
  };
  add_workloads(in, in.plan.workloads.lab, {frame::batch, batch_cell, entry, finish},
                results.workloads);
}

}  // namespace alloclab::lab
