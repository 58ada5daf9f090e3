#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

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

std::vector<double> gathered(const std::vector<const memory_figures*>& parts, const char* key) {
  std::vector<double> values;
  for (const auto* p : parts)
    if (p->details.contains(key)) append(values, p->details.at(key).get<std::vector<double>>());
  return values;
}

double summed(const std::vector<const memory_figures*>& parts, const char* key) {
  double total = 0;
  for (const auto* p : parts) total += p->details.value(key, 0.0);
  return total;
}

json budget_figures(const std::vector<const memory_figures*>& parts) {
  const json& first = parts.front()->details;
  const double budget = first.at("budget_bytes").get<double>();
  const std::vector<double> over_ms = gathered(parts, "time_over_soft_ms");
  const std::vector<double> peaks = gathered(parts, "peak_usage_bytes");
  const std::vector<double> share = gathered(parts, "time_over_soft_share");
  const double peak = peaks.empty() ? 0.0 : *std::max_element(peaks.begin(), peaks.end());
  json out = first;
  out.erase("time_over_soft_ms");
  out.erase("time_over_soft_share");
  out.erase("peak_usage_bytes");
  out.erase("checksum");
  out["peak_usage_bytes"] = static_cast<std::uint64_t>(peak);
  out["peak_fraction"] = budget > 0 ? peak / budget : 0.0;
  out["peak_usage_per_repetition"] = peaks;
  out["time_over_soft_ms_per_repetition"] = over_ms;
  out["time_over_soft_share"] = median_of(share);
  out["time_over_soft_share_per_repetition"] = share;
  for (const char* key :
       {"crossings", "watcher_purges", "service_purges", "minor_faults", "major_faults"})
    out[key] = static_cast<std::uint64_t>(summed(parts, key));
  out["events_process"] = 0;
  return out;
}

json huge_table_figures(const std::vector<const memory_figures*>& parts) {
  json out = parts.front()->details;
  out.erase("checksum");
  double lowest_share = 1;
  for (const auto* p : parts)
    lowest_share = std::min(lowest_share, p->details.at("huge_backed_share").get<double>());
  out["huge_backed_share_lowest"] = lowest_share;
  out["fill_minor_faults"] = static_cast<std::uint64_t>(summed(parts, "fill_minor_faults") /
                                                        static_cast<double>(parts.size()));
  return out;
}

json memory_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_json(cell_head(spec, rs));
  if (rs.broken() != nullptr) return cell;
  const std::vector<const memory_figures*> parts = figures_of(rs, &measurement_record::memory);
  cell_measurement timing;
  std::vector<double> seconds;
  for (const memory_figures* part : parts) {
    append(timing.samples_ns, part->samples_ns);
    append(seconds, part->repetition_seconds);
    add_repetitions(timing, *part);
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell["timing"] = model::write_json(timing_of(timing, parts.front()->operations_per_sample));
  const bool budget = spec.workload == "budget_bursts";
  json series = parts.front()->rss_series;
  series["process"] = 0;
  cell["memory_frame"] = {{"kind", budget ? "budget" : "huge_pages"},
                          {"repetition_seconds", seconds},
                          {"budget", budget ? budget_figures(parts) : json(nullptr)},
                          {"huge_pages", budget ? json(nullptr) : huge_table_figures(parts)},
                          {"vs_first_strategy", nullptr},
                          {"rss_series", std::move(series)}};
  const json& huge = cell["memory_frame"]["huge_pages"];
  if (!budget && huge.value("fell_back", false)) cell["warning"] = huge.at("backing");
  return cell;
}

// Each cell against the workload's first strategy under the same malloc: the throughput ratio
// (candidate / first, from mean time per sample) with its bootstrap interval over repetitions.
void add_strategy_costs(json& workload) {
  const std::string first = workload.at("baseline").at("strategy");
  for (auto& cell : workload["cells"]) {
    if (cell.at("memory_frame").is_null() || cell.at("strategy") == first) continue;
    const json* base = nullptr;
    for (const auto& c : workload.at("cells"))
      if (c.at("strategy") == first && c.at("malloc") == cell.at("malloc")) base = &c;
    if (base == nullptr) continue;
    const auto r = estimate_ratio("throughput_ratio", *base, cell);
    cell["memory_frame"]["vs_first_strategy"] = {
        {"strategy", first},
        {"throughput_ratio", estimate_json(r)},
        {"method",
         "mean time per sample of the first strategy / this cell's, same malloc; "
         "interval: percentile bootstrap over repetitions"}};
  }
}

json memory_workload_entry(const std::string& name, const run_plan& plan, json cells) {
  const memory_workload& w = *find_memory_workload(name);
  const bool budget = name == "budget_bursts";
  json spec = budget ? json{{"budget_bytes", plan.memory_budget.bytes},
                            {"budget_source", plan.memory_budget.source},
                            {"budget_from_cgroup", plan.memory_budget.from_cgroup}}
                     : json{{"table_bytes", plan.huge_table_bytes}};
  spec["repetitions"] = plan.sizes.memory_repetitions;
  json entry = {
      {"name", name},
      {"description", w.description},
      {"kind", "memory"},
      {"frame", "memory"},
      {"checksum", ""},
      {"batch_size", 1},
      {"batched", false},
      {"footprint", nullptr},
      {"heap_spec", nullptr},
      {"memory_spec", std::move(spec)},
      {"baseline", {{"strategy", w.strategies.front()}, {"malloc", plan.mallocs.front().label}}},
      {"cells", std::move(cells)}};
  add_strategy_costs(entry);
  return entry;
}

}  // namespace

std::string describe_memory_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (memory workload x strategy x malloc) runs alone in up to {} fresh processes; "
      "memory is sampled every 10 ms through the process; times per sample include the "
      "allocator's purges where the strategy purges; budget {} bytes ({})",
      plan.sizes.processes, plan.memory_budget.bytes, plan.memory_budget.source);
}

void add_memory_results(const frame_results_input& in, json& results) {
  const auto entry = [&in](const std::string& name, json cells, const auto&) {
    return memory_workload_entry(name, in.plan, std::move(cells));
  };
  add_workloads(in, in.plan.workloads.memory, {frame::memory, memory_cell, entry, {}},
                results["workloads"]);
}

}  // namespace alloclab::lab
