#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/replay/figures.hpp"
#include "frames/replay/process_figures.hpp"
#include "frames/replay/run_options.hpp"
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
std::optional<model::spread> spread_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
  return model::spread{whole(median_of(values)), whole(values.front()), whole(values.back())};
}

// Replay frame memory: per reading, the median and range over the cell's processes. "ideal" is
// the trace's peak live bytes; fragmentation is the peak RSS growth beyond the engine's own
// bookkeeping, per ideal byte.
replay_memory replay_memory_of(const std::vector<replay_memory_reading>& runs,
                               std::uint64_t peak_live_bytes) {
  const auto readings = [&](std::uint64_t replay_memory_reading::*reading) {
    std::vector<double> values;
    for (const auto& r : runs) values.push_back(static_cast<double>(r.*reading));
    return values;
  };
  const auto above = [](std::uint64_t value, std::uint64_t base) {
    return std::max(0.0, static_cast<double>(value) - static_cast<double>(base));
  };
  std::vector<double> growth, after_free, after_purge;
  for (const auto& r : runs) {
    growth.push_back(std::max(0.0, above(r.peak_rss_bytes, r.baseline_rss_bytes) -
                                       static_cast<double>(r.bookkeeping_bytes)));
    after_free.push_back(above(r.rss_after_free_bytes, r.baseline_rss_bytes));
    after_purge.push_back(above(r.rss_after_purge_bytes, r.baseline_rss_bytes));
  }
  const double peak_growth = median_of(growth);
  replay_memory m;
  m.baseline_rss_bytes = spread_of(readings(&replay_memory_reading::baseline_rss_bytes));
  m.peak_rss_bytes = spread_of(readings(&replay_memory_reading::peak_rss_bytes));
  m.peak_rss_growth_bytes = spread_of(growth);
  m.ideal_rss_bytes = peak_live_bytes;
  m.bookkeeping_bytes = spread_of(readings(&replay_memory_reading::bookkeeping_bytes));
  m.fragmentation = replay_fragmentation(peak_growth, peak_live_bytes);
  m.rss_after_free_bytes = spread_of(readings(&replay_memory_reading::rss_after_free_bytes));
  m.rss_after_purge_bytes = spread_of(readings(&replay_memory_reading::rss_after_purge_bytes));
  m.retained_after_free = fraction_of(median_of(after_free), peak_growth);
  m.retained_after_purge = fraction_of(median_of(after_purge), peak_growth);
  m.peak_was_reset = runs.front().peak_was_reset;
  m.purge = runs.front().purge;
  m.minor_faults = spread_of(readings(&replay_memory_reading::minor_faults));
  return m;
}

per_replay per_replay_of(std::vector<double> values) {
  per_replay p;
  p.median = median_of(values);
  p.per_repetition = std::move(values);
  return p;
}

// Replay frame: one timing sample per whole replay (ns per call), so the comparison's intervals
// are over replays in fresh processes; totals and memory beside it.
model::cell replay_cell(const cell_spec& spec, const cell_records& rs) {
  model::cell cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  const std::vector<const replay_figures*> parts = figures_of<replay_figures>(rs);
  cell_measurement timing;
  std::vector<double> totals, walls, program;
  std::vector<replay_memory_reading> memory;
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
    memory.push_back(model::read_json<replay_memory_reading>(f.memory, "/memory"));
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell.timing = timing_of(timing, 1);
  const replay_figures& first = *parts.front();
  replay_figures_out out;
  out.calls = first.calls;
  out.skipped_calls = first.skipped;
  out.threads = first.threads;
  out.ns_per_call = per_replay_of(timing.samples_ns);
  out.program_ns_per_call = per_replay_of(std::move(program));
  out.total_ms = per_replay_of(std::move(totals));
  out.wall_ms = per_replay_of(std::move(walls));
  out.memory = replay_memory_of(memory, first.peak_live_bytes);
  cell.figures = model::figures::of(replay_cell_figures{std::move(out)});
  return cell;
}

// The baseline malloc's median call time of a whole replay, in ms (null: no such cell).
std::optional<double> baseline_call_ms(const std::vector<model::cell>& cells,
                                       const std::string& baseline) {
  for (const model::cell& c : cells) {
    if (c.head.strategy != replay_malloc_strategy || c.head.malloc != baseline) continue;
    const replay_cell_figures* figures = c.figures.as<replay_cell_figures>();
    if (figures != nullptr && figures->replay) return figures->replay->total_ms.median;
  }
  return std::nullopt;
}

// The trace's assessment (trace/replay_trust.hpp) in the results, with the share of the
// recorded run's wall time the baseline malloc's calls take in the replay.
replay_trust_figures trust_figures(const replay_trace_facts& facts, std::optional<double> call_ms) {
  const trace::replay_trust& t = facts.trust;
  replay_trust_figures f;
  f.predictive = t.predictive;
  f.ranking = t.predictive ? trace::predictive_text : trace::not_predictive_text;
  f.reasons = t.reasons;
  f.cross_thread_free_share = t.cross_thread_free_share;
  f.producer_consumer_pairs = t.producer_consumer_pairs;
  if (t.timed) f.peak_live_spread = t.peak_live_spread;
  f.peak_live_lowest_bytes = t.peak_live_lowest;
  f.peak_live_highest_bytes = t.peak_live_highest;
  if (call_ms && facts.duration_us > 0)
    f.malloc_time_share = std::min(1.0, *call_ms * 1e3 / static_cast<double>(facts.duration_us));
  f.replay_error_percent = trace::replay_error_percent;
  return f;
}

model::workload replay_workload_entry(const run_plan& plan, std::vector<model::cell> cells) {
  const replay_request& t = replay_sizes_of(plan).replay;
  model::workload entry;
  entry.name = t.name;
  entry.description = "replay of the trace " + t.trace;
  entry.kind = "trace";
  entry.frame = "replay";
  entry.baseline = {replay_malloc_strategy, plan.mallocs.front().label};
  replay_workload_figures figures;
  figures.trace = {t.trace,
                   t.facts.threads,
                   t.facts.monotonic_footprint,
                   t.facts.aligned_allocations,
                   replay_arena_bytes(t.facts),
                   t.facts.trust.peak_live_bytes,
                   t.facts.replayed};
  figures.replay_trust = trust_figures(t.facts, baseline_call_ms(cells, entry.baseline.malloc));
  entry.figures = model::figures::of(std::move(figures));
  entry.cells = std::move(cells);
  return entry;
}

// The replay's settings, in the results' config (model: replay_config_figures).
replay_config_figures replay_config(const run_plan& plan) {
  replay_config_figures part;
  part.replay.trace = replay_sizes_of(plan).replay.trace;
  part.replay.repetitions = replay_sizes_of(plan).repetitions;
  part.replay.strategies = replay_sizes_of(plan).replay.strategies;
  return part;
}

}  // namespace

std::string describe_replay_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (trace x malloc, or trace x in-process resource under {}) replays the whole "
      "trace, each recorded thread on a thread of its own, {} times in up to {} fresh "
      "processes; ns per call excludes decoding and cross-thread waits; every block is written "
      "once when allocated; RSS readings come from each process's first replay",
      plan.mallocs.front().label, replay_sizes_of(plan).repetitions, plan.sizes.processes);
}

void add_replay_results(const frame_results_input& in, model::document& results) {
  if (replay_sizes_of(in.plan).replay.trace.empty()) return;
  results.config.frames.set(replay_config(in.plan));
  const auto entry = [&in](const std::string&, std::vector<model::cell> cells, const auto&) {
    return replay_workload_entry(in.plan, std::move(cells));
  };
  add_workloads(in, {replay_sizes_of(in.plan).replay.name}, {frame::replay, replay_cell, entry, {}},
                results.workloads);
}

}  // namespace alloclab::lab
