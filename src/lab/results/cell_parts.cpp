#include "results/cell_parts.hpp"

#include <fmt/format.h>

#include "model/versions.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {

using json = nlohmann::json;

void for_each_cell(const frame_results_input& in, const std::string& name, frame f,
                   const std::function<void(const cell_spec&, const cell_records&)>& visit) {
  for (std::size_t i = 0; i < in.plan.cells.size(); ++i) {
    const cell_spec& spec = in.plan.cells[i];
    const auto found = in.by_cell.find(i);
    if (spec.workload == name && spec.frame == f && found != in.by_cell.end())
      visit(spec, found->second);
  }
}

std::vector<model::cell> cells_of(const frame_results_input& in, const std::string& name, frame f,
                                  cell_builder build, std::vector<const cell_records*>* records) {
  std::vector<model::cell> cells;
  for_each_cell(in, name, f, [&](const cell_spec& spec, const cell_records& rs) {
    if (records != nullptr) records->push_back(&rs);
    cells.push_back(build(spec, rs));
  });
  return cells;
}

void add_workloads(const frame_results_input& in, const std::vector<std::string>& names,
                   const workload_parts& parts, std::vector<model::workload>& out) {
  for (const std::string& name : names) {
    std::vector<const cell_records*> records;
    model::workload w =
        parts.entry(name, cells_of(in, name, parts.f, parts.cell, &records), records);
    if (parts.finish)
      parts.finish(w);
    else
      add_comparisons(w, in.power);
    out.push_back(std::move(w));
  }
}

std::optional<std::string> text_or_null(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

model::cell unmeasured_cell(const std::string& strategy, const std::string& malloc,
                            const std::string& status, const std::string& reason) {
  model::cell c;
  c.head.strategy = strategy;
  c.head.malloc = malloc;
  c.head.status = status;
  c.head.reason = text_or_null(reason);
  return c;
}

namespace {

std::optional<model::liveness_proof> proof_of(const json& j) {
  return model::read_json<std::optional<model::liveness_proof>>(j, "/live_allocator");
}
std::optional<model::worker_exit> exit_of(const json& j) {
  return model::read_json<std::optional<model::worker_exit>>(j, "/worker");
}

}  // namespace

model::rss_series first_process_series(const json& worker_series, const std::string& where) {
  json series = worker_series;
  series["process"] = 0;  // the worker's has none: it is the first
  return model::read_json<model::rss_series>(series, where);
}

double median_of(std::vector<double> values) {
  return values.empty() ? 0.0 : percentile(std::move(values), 0.5);
}

void append(std::vector<double>& to, const std::vector<double>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

model::timing timing_of(const cell_measurement& c, std::size_t batch) {
  const summary s = summarize(c.samples_ns);
  model::timing t;
  t.samples = s.count;
  t.iterations_per_sample = batch;
  t.timed_iterations = c.timed_iterations;
  t.min_ns = s.min;
  t.p50_ns = s.p50;
  t.p90_ns = s.p90;
  t.p99_ns = s.p99;
  t.p999_ns = s.p999;
  t.max_ns = s.max;
  t.mean_ns = s.mean;
  t.stddev_ns = s.stddev;
  t.cv = s.cv;
  t.jitter_ns = s.jitter;
  t.throughput_per_s = s.mean > 0 ? 1e9 / s.mean : 0.0;
  t.repetition_medians_ns = c.repetition_medians_ns;
  t.repetition_p99_ns = c.repetition_p99_ns;
  t.repetition_means_ns = c.repetition_means_ns;
  t.repetition_cv = c.repetition_cv;
  t.repetition_means_summary = model::summarize_repetition_means(c.repetition_means_ns);
  return t;
}

// What every frame's cell starts from: its identity, its processes, the first process's proof and
// exit facts, or those of the first process that has no number (whose status the cell takes).
model::cell cell_head(const cell_spec& spec, const cell_records& rs) {
  const measurement_record& first = *rs.parts.front();
  model::cell c = unmeasured_cell(spec.strategy, spec.malloc.label, first.status, first.reason);
  c.head.processes = rs.parts.size();
  c.head.live_allocator = proof_of(first.live_allocator);
  c.head.worker = exit_of(first.worker);
  c.head.placement_twin = spec.copy_cliff_removed;
  if (const measurement_record* bad = rs.broken(); bad != nullptr) {
    c.head.status = bad->status;
    c.head.reason = text_or_null(bad->reason);
    c.head.worker = exit_of(bad->worker);
    if (!bad->live_allocator.is_null()) c.head.live_allocator = proof_of(bad->live_allocator);
  }
  return c;
}

std::optional<double> fraction_of(double part, double whole) {
  return whole > 0 ? std::optional<double>(part / whole) : std::nullopt;
}

std::string checksum_text(std::uint64_t sum) {
  return fmt::format("{:#018x}", sum);
}

// Seed 003's figure for a workload: requests per log2 size band, or null.
std::optional<model::size_histogram> size_histogram_of(const std::vector<std::uint64_t>& bands,
                                                       const char* source) {
  if (bands.empty()) return std::nullopt;
  return model::size_histogram{
      bands, "band k counts request sizes in [2^k, 2^(k+1)) bytes; band 0 also 0", source};
}

std::optional<model::interval> interval_of(const interval& i) {
  if (!i.valid()) return std::nullopt;
  return model::interval{i.low, i.high};
}

std::optional<model::estimate> estimate_of(const std::optional<ratio_estimate>& r) {
  if (!r) return std::nullopt;
  return model::estimate{r->value, interval_of(r->range)};
}

const model::cell* find_cell(const model::workload& workload, const std::string& strategy,
                             const std::string& malloc) {
  for (const model::cell& c : workload.cells)
    if (c.head.strategy == strategy && c.head.malloc == malloc) return &c;
  return nullptr;
}

}  // namespace alloclab::lab
