#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/memory/figures.hpp"
#include "frames/memory/process_figures.hpp"
#include "frames/memory/run_options.hpp"
#include "frames/memory/frame.hpp"
#include "frames/memory/memory_workloads.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

// The memory frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// Memory frame: samples (requests or access batches) summarised per repetition like a lab cell;
// the workload's own figures over every process; the first process's RSS series and events.
void add_repetitions(cell_measurement& timing, const memory_figures& m) {
  std::size_t start = 0;
  for (const std::size_t n : m.samples_per_repetition) {
    if (n == 0 || start + n > m.samples_ns.size()) break;
    std::vector<double> rep(m.samples_ns.begin() + static_cast<std::ptrdiff_t>(start),
                            m.samples_ns.begin() + static_cast<std::ptrdiff_t>(start + n));
    start += n;
    const summary s = summarize(rep);
    timing.repetition_medians_ns.push_back(s.p50);
    timing.repetition_p99_ns.push_back(s.p99);
    timing.repetition_means_ns.push_back(s.mean);
    timing.repetition_cv.push_back(s.cv);
  }
}

// Each process's reading of its workload, in part order.
template <class Reading>
std::vector<Reading> readings_of(const std::vector<const memory_figures*>& parts) {
  std::vector<Reading> out;
  for (const auto* p : parts) out.push_back(model::read_json<Reading>(p->details, "/details"));
  return out;
}

// The first process's settings and events; the per-repetition figures of every process; the
// counts summed.
budget_figures budget_figures_of(const std::vector<budget_reading>& runs) {
  budget_figures out;
  static_cast<budget_settings&>(out) = runs.front();
  for (const budget_reading& r : runs) {
    append(out.peak_usage_per_repetition, r.peak_usage_bytes);
    append(out.time_over_soft_ms_per_repetition, r.time_over_soft_ms);
    append(out.time_over_soft_share_per_repetition, r.time_over_soft_share);
    out.add(r);
  }
  const std::vector<double>& peaks = out.peak_usage_per_repetition;
  const double peak = peaks.empty() ? 0.0 : *std::max_element(peaks.begin(), peaks.end());
  const auto budget = static_cast<double>(out.budget_bytes);
  out.peak_usage_bytes = static_cast<std::uint64_t>(peak);
  out.peak_fraction = budget > 0 ? peak / budget : 0.0;
  out.time_over_soft_share = median_of(out.time_over_soft_share_per_repetition);
  out.events = runs.front().events;
  out.events_dropped = runs.front().events_dropped;
  out.events_process = 0;
  return out;
}

// The first process's facts, with the lowest huge-backed share and the mean fill faults.
huge_page_figures huge_page_figures_of(const std::vector<huge_table_reading>& runs) {
  huge_page_figures out;
  static_cast<huge_table_facts&>(out) = runs.front();
  double lowest_share = 1, fill_faults = 0;
  for (const huge_table_reading& r : runs) {
    lowest_share = std::min(lowest_share, r.huge_backed_share);
    fill_faults += static_cast<double>(r.fill_minor_faults);
  }
  out.huge_backed_share_lowest = lowest_share;
  out.fill_minor_faults =
      static_cast<std::uint64_t>(fill_faults / static_cast<double>(runs.size()));
  return out;
}

model::cell memory_cell(const cell_spec& spec, const cell_records& rs) {
  model::cell cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  const std::vector<const memory_figures*> parts = figures_of<memory_figures>(rs);
  cell_measurement timing;
  memory_frame_figures frame;
  for (const memory_figures* part : parts) {
    append(timing.samples_ns, part->samples_ns);
    append(frame.repetition_seconds, part->repetition_seconds);
    add_repetitions(timing, *part);
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell.timing = timing_of(timing, parts.front()->operations_per_sample);
  const bool budget = spec.workload == "budget_bursts";
  frame.kind = budget ? "budget" : "huge_pages";
  if (budget) {
    frame.budget = budget_figures_of(readings_of<budget_reading>(parts));
  } else {
    frame.huge_pages = huge_page_figures_of(readings_of<huge_table_reading>(parts));
    if (frame.huge_pages->fell_back) cell.head.warning = frame.huge_pages->backing;
  }
  frame.rss_series = first_process_series(parts.front()->rss_series, "/memory_frame/rss_series");
  cell.figures = model::figures::of(memory_cell_figures{std::move(frame)});
  return cell;
}

// Each cell against the workload's first strategy under the same malloc: the throughput ratio
// (candidate / first, from mean time per sample) with its bootstrap interval over repetitions.
void add_strategy_costs(model::workload& workload) {
  const std::string first = workload.baseline.strategy;
  for (model::cell& cell : workload.cells) {
    memory_cell_figures* figures = cell.figures.as<memory_cell_figures>();
    if (figures == nullptr || !figures->memory_frame || cell.head.strategy == first) continue;
    const model::cell* base = nullptr;
    for (const model::cell& c : workload.cells)
      if (c.head.strategy == first && c.head.malloc == cell.head.malloc) base = &c;
    if (base == nullptr) continue;
    const auto r = estimate_cell_ratio("throughput_ratio", *base, cell);
    figures->memory_frame->vs_first_strategy =
        strategy_cost{first, estimate_of(r),
                      "mean time per sample of the first strategy / this cell's, same malloc; "
                      "interval: percentile bootstrap over repetitions"};
  }
}

model::workload memory_workload_entry(const std::string& name, const run_plan& plan,
                                      std::vector<model::cell> cells) {
  const memory_workload& w = *find_memory_workload(name);
  model::workload entry;
  entry.name = name;
  entry.description = w.description;
  entry.kind = "memory";
  entry.frame = "memory";
  entry.baseline = {w.strategies.front(), plan.mallocs.front().label};
  memory_workload_spec spec;
  if (name == "budget_bursts") {
    spec.budget_bytes.emplace(memory_sizes_of(plan).budget.bytes);
    spec.budget_source.emplace(memory_sizes_of(plan).budget.source);
    spec.budget_from_cgroup.emplace(memory_sizes_of(plan).budget.from_cgroup);
  } else {
    spec.table_bytes.emplace(memory_sizes_of(plan).huge_table_bytes);
  }
  spec.repetitions = memory_sizes_of(plan).repetitions;
  entry.figures = model::figures::of(memory_workload_figures{std::move(spec)});
  entry.cells = std::move(cells);
  add_strategy_costs(entry);
  return entry;
}

}  // namespace

std::string describe_memory_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (memory workload x strategy x malloc) runs alone in up to {} fresh processes; "
      "memory is sampled every 10 ms through the process; times per sample include the "
      "allocator's purges where the strategy purges; budget {} bytes ({})",
      plan.sizes.processes, memory_sizes_of(plan).budget.bytes,
      memory_sizes_of(plan).budget.source);
}

void add_memory_results(const frame_results_input& in, model::document& results) {
  const auto entry = [&in](const std::string& name, std::vector<model::cell> cells, const auto&) {
    return memory_workload_entry(name, in.plan, std::move(cells));
  };
  add_workloads(in, in.plan.workloads.memory, {frame::memory, memory_cell, entry, {}},
                results.workloads);
}

}  // namespace alloclab::lab
