#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/replay/figures.hpp"
#include "frames/replay/frame.hpp"
#include "frames/replay/replay_resources.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

// The replay frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// Median and range over the processes of one of the replay's RSS readings.
json spread_json(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
  return {{"median", whole(median_of(values))},
          {"min", whole(values.front())},
          {"max", whole(values.back())}};
}

// Replay frame memory: per reading, the median and range over the cell's processes. "ideal" is
// the trace's peak live bytes; fragmentation is the peak RSS growth beyond the engine's own
// bookkeeping, per ideal byte.
json replay_memory(const std::vector<const replay_figures*>& parts) {
  auto readings = [&](const char* key) {
    std::vector<double> values;
    for (const auto* p : parts) values.push_back(p->memory.at(key).get<double>());
    return values;
  };
  std::vector<double> growth, after_free, after_purge;
  for (const auto* p : parts) {
    const double base = p->memory.at("baseline_rss_bytes").get<double>();
    const double book = p->memory.at("bookkeeping_bytes").get<double>();
    growth.push_back(std::max(0.0, p->memory.at("peak_rss_bytes").get<double>() - base - book));
    after_free.push_back(std::max(0.0, p->memory.at("rss_after_free_bytes").get<double>() - base));
    after_purge.push_back(
        std::max(0.0, p->memory.at("rss_after_purge_bytes").get<double>() - base));
  }
  const double ideal = static_cast<double>(parts.front()->peak_live_bytes);
  const double peak_growth = median_of(growth);
  return {{"baseline_rss_bytes", spread_json(readings("baseline_rss_bytes"))},
          {"peak_rss_bytes", spread_json(readings("peak_rss_bytes"))},
          {"peak_rss_growth_bytes", spread_json(growth)},
          {"ideal_rss_bytes", parts.front()->peak_live_bytes},
          {"bookkeeping_bytes", spread_json(readings("bookkeeping_bytes"))},
          {"fragmentation", fraction_or_null(peak_growth, ideal)},
          {"rss_after_free_bytes", spread_json(readings("rss_after_free_bytes"))},
          {"rss_after_purge_bytes", spread_json(readings("rss_after_purge_bytes"))},
          {"retained_after_free", fraction_or_null(median_of(after_free), peak_growth)},
          {"retained_after_purge", fraction_or_null(median_of(after_purge), peak_growth)},
          {"peak_was_reset", parts.front()->memory.at("peak_was_reset")},
          {"purge", parts.front()->memory.at("purge")},
          {"minor_faults", spread_json(readings("minor_faults"))}};
}

// Replay frame: one timing sample per whole replay (ns per call), so the comparison's intervals
// are over replays in fresh processes; totals and memory beside it.
json replay_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_json(cell_head(spec, rs));
  if (rs.broken() != nullptr) return cell;
  const std::vector<const replay_figures*> parts = figures_of(rs, &measurement_record::replay);
  cell_measurement timing;
  std::vector<double> totals, walls, program;
  for (const replay_figures* part : parts) {
    const replay_figures& f = *part;
    append(program, f.program_ns_per_call);
    append(timing.samples_ns, f.ns_per_call);
    append(timing.repetition_medians_ns, f.ns_per_call);
    append(timing.repetition_p99_ns, f.ns_per_call);
    append(timing.repetition_means_ns, f.ns_per_call);
    timing.repetition_cv.insert(timing.repetition_cv.end(), f.ns_per_call.size(), 0.0);
    for (double s : f.call_seconds) totals.push_back(1e3 * s);
    for (double s : f.wall_seconds) walls.push_back(1e3 * s);
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell["timing"] = model::write_json(timing_of(timing, 1));
  const replay_figures& first = *parts.front();
  cell["replay"] = {
      {"calls", first.calls},
      {"skipped_calls", first.skipped},
      {"threads", first.threads},
      {"ns_per_call",
       {{"median", median_of(timing.samples_ns)}, {"per_repetition", timing.samples_ns}}},
      {"program_ns_per_call", {{"median", median_of(program)}, {"per_repetition", program}}},
      {"total_ms", {{"median", median_of(totals)}, {"per_repetition", totals}}},
      {"wall_ms", {{"median", median_of(walls)}, {"per_repetition", walls}}},
      {"memory", replay_memory(parts)}};
  return cell;
}

json replay_workload_entry(const run_plan& plan, json cells) {
  const replay_request& t = plan.replay;
  return {
      {"name", t.name},
      {"description", "replay of the trace " + t.trace},
      {"kind", "trace"},
      {"frame", "replay"},
      {"checksum", ""},
      {"batch_size", 1},
      {"batched", false},
      {"footprint", nullptr},
      {"heap_spec", nullptr},
      {"trace",
       {{"path", t.trace},
        {"threads", t.facts.threads},
        {"monotonic_footprint", t.facts.monotonic_footprint},
        {"aligned_allocations", t.facts.aligned_allocations},
        {"arena_bytes", replay_arena_bytes(t.facts)}}},
      {"baseline", {{"strategy", replay_malloc_strategy}, {"malloc", plan.mallocs.front().label}}},
      {"cells", std::move(cells)}};
}

// The replay's settings, in the results' config (model: replay_config_figures).
replay_config_figures replay_config(const run_plan& plan) {
  replay_config_figures part;
  part.replay.trace = plan.replay.trace;
  part.replay.repetitions = plan.sizes.replay_repetitions;
  part.replay.strategies = plan.replay.strategies;
  return part;
}

}  // namespace

std::string describe_replay_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (trace x malloc, or trace x in-process resource under {}) replays the whole "
      "trace, each recorded thread on a thread of its own, {} times in up to {} fresh "
      "processes; ns per call excludes decoding and cross-thread waits; every block is written "
      "once when allocated; RSS readings come from each process's first replay",
      plan.mallocs.front().label, plan.sizes.replay_repetitions, plan.sizes.processes);
}

void add_replay_results(const frame_results_input& in, json& results) {
  if (in.plan.replay.trace.empty()) return;
  model::write_fields(replay_config(in.plan), results["config"]);
  const auto entry = [&in](const std::string&, json cells, const auto&) {
    return replay_workload_entry(in.plan, std::move(cells));
  };
  add_workloads(in, {in.plan.replay.name}, {frame::replay, replay_cell, entry, {}},
                results["workloads"]);
}

}  // namespace alloclab::lab
