#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/batch/frame.hpp"
#include "results/cell_parts.hpp"
#include "results/peer_verdict.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

// The batch frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// Batch frame: parts concatenated (samples, per-repetition figures), counts kept per iteration.
json batch_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_head(spec, rs);
  if (const measurement_record* bad = rs.broken();
      bad != nullptr && (bad->status != "not_applicable" || !bad->batch))
    return cell;
  cell_measurement merged;
  json residues = nullptr;  // the first process's: the counted pass runs in a fresh process
  std::size_t batch = 1;
  for (const auto* r : rs.parts) {
    if (!r->batch) continue;
    const cell_measurement& c = r->batch->cell;
    batch = r->batch->batch_size;
    if (merged.warning.empty()) merged.warning = c.warning;
    append(merged.samples_ns, c.samples_ns);
    append(merged.repetition_medians_ns, c.repetition_medians_ns);
    append(merged.repetition_p99_ns, c.repetition_p99_ns);
    append(merged.repetition_means_ns, c.repetition_means_ns);
    append(merged.repetition_cv, c.repetition_cv);
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
    if (residues.is_null()) residues = c.residues;
  }
  cell["warning"] = or_null(merged.warning);
  cell["buffer_bytes"] = merged.buffer_bytes;
  if (cell["status"] == "not_applicable") return cell;
  cell["heap"] = {{"allocations_per_iteration", merged.heap_allocations_per_iteration},
                  {"bytes_per_iteration", merged.heap_bytes_per_iteration}};
  cell["upstream_fallbacks_per_iteration"] = merged.upstream_fallbacks_per_iteration;
  cell["placement"] = residues;
  if (cell["status"] != "ok" || merged.samples_ns.empty()) return cell;
  cell["timing"] = timing_json(merged, batch);
  const double per_thousand = merged.timed_iterations
                                  ? 1000.0 * static_cast<double>(merged.minor_faults) /
                                        static_cast<double>(merged.timed_iterations)
                                  : 0.0;
  cell["os"] = {{"minor_faults_per_1000_iterations", per_thousand},
                {"peak_rss_growth_kib", merged.peak_rss_growth_kib}};
  return cell;
}

// The batch executor's per-workload calibrations (workload name -> calibration).
json calibrations_of(const run_records& run) {
  const json batch = run.frame_facts.value("batch", json::object());
  return batch.value("calibrations", json::object());
}

json lab_workload(const std::string& name, const run_plan& plan, const run_records& run,
                  json cells) {
  const workload_entry* entry = find_workload(name);
  const json calibration = calibrations_of(run).value(name, json(nullptr));
  const std::size_t batch =
      calibration.is_null() ? 1 : calibration.at("batch_size").get<std::size_t>();
  return {
      {"name", name},
      {"description", entry->description},
      {"kind", "lab"},
      {"frame", "batch"},
      {"checksum",
       calibration.is_null() ? "" : checksum_text(calibration.at("checksum").get<std::uint64_t>())},
      {"batch_size", batch},
      {"batched", batch > 1},
      {"footprint", calibration.is_null() ? json(nullptr) : calibration.at("footprint")},
      {"size_histogram",
       calibration.is_null()
           ? json(nullptr)
           : size_histogram_json(calibration.at("footprint")
                                     .value("size_histogram_log2", std::vector<std::uint64_t>{}),
                                 "one iteration's requests, counted by a tracking pass over std")},
      {"heap_spec", nullptr},
      {"baseline", {{"strategy", baseline_strategy}, {"malloc", plan.mallocs.front().label}}},
      {"cells", std::move(cells)}};
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
json placement_analysis(const json& workload, const std::string& malloc, const std::string& twin) {
  const json* base = find_cell(workload, baseline_strategy, malloc);
  const json* base_twin = find_cell(workload, baseline_strategy, twin);
  if (base == nullptr || base_twin == nullptr || base->at("timing").is_null() ||
      base_twin->at("timing").is_null())
    return nullptr;
  const auto cliff_cost = estimate_ratio("speedup_p50", *base, *base_twin);
  json strategies = json::array();
  std::vector<std::string> driven;
  for (const auto& cell : workload.at("cells")) {
    if (cell.at("malloc") != malloc || cell.at("strategy") == baseline_strategy) continue;
    const json* other = find_cell(workload, cell.at("strategy"), twin);
    if (other == nullptr || cell.at("timing").is_null() || other->at("timing").is_null()) continue;
    const auto with = estimate_ratio("speedup_p50", *base, cell);
    const auto without = estimate_ratio("speedup_p50", *base_twin, *other);
    const bool placement_driven = with && without && disagree(*with, *without);
    if (placement_driven) driven.push_back(cell.at("strategy"));
    strategies.push_back({{"strategy", cell.at("strategy")},
                          {"with_cliff", estimate_json(with)},
                          {"without_cliff", estimate_json(without)},
                          {"placement_driven", placement_driven}});
  }
  return {{"malloc", malloc},
          {"twin", twin},
          {"baseline_copy_cliff_cost", estimate_json(cliff_cost)},
          {"placement_driven", driven},
          {"strategies", strategies}};
}

}  // namespace

std::string describe_batch_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (workload x strategy x malloc) runs alone in {} fresh processes of its own, "
      "interleaved with the other cells; a number includes the workload's own work, page faults "
      "in the timed loop, buffer placement as that allocator chose it in a fresh process, and "
      "the proven live malloc; it does not depend on which other cells ran",
      plan.sizes.processes);
}

void add_batch_results(const frame_results_input& in, json& results) {
  if (!has_frame(in.plan, frame::batch)) return;
  const auto entry = [&in](const std::string& name, json cells, const auto&) {
    return lab_workload(name, in.plan, in.run, std::move(cells));
  };
  const auto finish = [&in](json& w) {
    add_comparisons(w, in.power);
    w["placement"] = in.plan.placement_twin.empty()
                         ? json(nullptr)
                         : placement_analysis(w, native_malloc, in.plan.placement_twin);
    w["peer_verdicts"] = peer_verdicts(w, in.power);
  };
  add_workloads(in, in.plan.workloads.lab, {frame::batch, batch_cell, entry, finish},
                results["workloads"]);
}

}  // namespace alloclab::lab
