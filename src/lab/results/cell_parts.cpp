#include "results/cell_parts.hpp"

#include <fmt/format.h>

#include "results/results_builder.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {

using json = nlohmann::json;

json cells_of(const frame_results_input& in, const std::string& name, frame f, cell_builder build,
              std::vector<const cell_records*>* records) {
  json cells = json::array();
  for (std::size_t i = 0; i < in.plan.cells.size(); ++i) {
    const cell_spec& spec = in.plan.cells[i];
    const auto found = in.by_cell.find(i);
    if (spec.workload != name || spec.frame != f || found == in.by_cell.end()) continue;
    if (records != nullptr) records->push_back(&found->second);
    cells.push_back(build(spec, found->second));
  }
  return cells;
}

void add_workloads(const frame_results_input& in, const std::vector<std::string>& names,
                   const workload_parts& parts, json& out) {
  for (const std::string& name : names) {
    std::vector<const cell_records*> records;
    json w = parts.entry(name, cells_of(in, name, parts.f, parts.cell, &records), records);
    if (parts.finish) {
      parts.finish(w);
    } else {
      add_comparisons(w, in.power);
      w["placement"] = nullptr;
      w["peer_verdicts"] = nullptr;
    }
    out.push_back(std::move(w));
  }
}

json or_null(const std::string& text) {
  return text.empty() ? json(nullptr) : json(text);
}

// A cell with every key of the schema and no figures.
json unmeasured_cell(const std::string& strategy, const std::string& malloc,
                     const std::string& status, const std::string& reason) {
  return {{"strategy", strategy},
          {"malloc", malloc},
          {"status", status},
          {"reason", or_null(reason)},
          {"warning", nullptr},
          {"buffer_bytes", 0},
          {"processes", 0},
          {"heap", nullptr},
          {"upstream_fallbacks_per_iteration", nullptr},
          {"timing", nullptr},
          {"os", nullptr},
          {"vs_std", nullptr},
          {"live_allocator", nullptr},
          {"worker", nullptr},
          {"memory", nullptr},
          {"ns_per_pair", nullptr},
          {"placement", nullptr},
          {"placement_twin", false},
          {"memory_frame", nullptr},
          {"replay", nullptr}};
}

double median_of(std::vector<double> values) {
  return values.empty() ? 0.0 : percentile(std::move(values), 0.5);
}

void append(std::vector<double>& to, const std::vector<double>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

json timing_json(const cell_measurement& c, std::size_t batch) {
  const summary s = summarize(c.samples_ns);
  return {{"samples", s.count},
          {"iterations_per_sample", batch},
          {"timed_iterations", c.timed_iterations},
          {"min_ns", s.min},
          {"p50_ns", s.p50},
          {"p90_ns", s.p90},
          {"p99_ns", s.p99},
          {"p999_ns", s.p999},
          {"max_ns", s.max},
          {"mean_ns", s.mean},
          {"stddev_ns", s.stddev},
          {"cv", s.cv},
          {"jitter_ns", s.jitter},
          {"throughput_per_s", s.mean > 0 ? 1e9 / s.mean : 0.0},
          {"repetition_medians_ns", c.repetition_medians_ns},
          {"repetition_p99_ns", c.repetition_p99_ns},
          {"repetition_means_ns", c.repetition_means_ns},
          {"repetition_cv", c.repetition_cv}};
}

// What every frame's cell starts from: its identity, its processes, the first process's proof and
// exit facts, or those of the first process that has no number (whose status the cell takes).
json cell_head(const cell_spec& spec, const cell_records& rs) {
  const measurement_record& first = *rs.parts.front();
  json cell = unmeasured_cell(spec.strategy, spec.malloc.label, first.status, first.reason);
  cell["processes"] = rs.parts.size();
  cell["live_allocator"] = first.live_allocator;
  cell["worker"] = first.worker;
  cell["placement_twin"] = spec.copy_cliff_removed;
  if (const measurement_record* bad = rs.broken(); bad != nullptr) {
    cell["status"] = bad->status;
    cell["reason"] = or_null(bad->reason);
    cell["worker"] = bad->worker;
    if (!bad->live_allocator.is_null()) cell["live_allocator"] = bad->live_allocator;
  }
  return cell;
}

json fraction_or_null(double part, double whole) {
  return whole > 0 ? json(part / whole) : json(nullptr);
}

std::string checksum_text(std::uint64_t sum) {
  return fmt::format("{:#018x}", sum);
}

// Seed 003's figure for a workload: requests per log2 size band, or null.
json size_histogram_json(const std::vector<std::uint64_t>& bands, const char* source) {
  if (bands.empty()) return nullptr;
  return {{"bands", bands},
          {"band_rule", "band k counts request sizes in [2^k, 2^(k+1)) bytes; band 0 also 0"},
          {"source", source}};
}

json interval_json(const interval& i) {
  return i.valid() ? json{{"low", i.low}, {"high", i.high}} : json(nullptr);
}

const json* find_cell(const json& workload, const std::string& strategy,
                      const std::string& malloc) {
  for (const auto& c : workload.at("cells"))
    if (c.at("strategy") == strategy && c.at("malloc") == malloc) return &c;
  return nullptr;
}

json estimate_json(const std::optional<ratio_estimate>& r) {
  if (!r) return nullptr;
  return {{"value", r->value}, {"interval", interval_json(r->range)}};
}

}  // namespace alloclab::lab
