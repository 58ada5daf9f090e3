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

json cells_of(const frame_results_input& in, const std::string& name, frame f, cell_builder build,
              std::vector<const cell_records*>* records) {
  json cells = json::array();
  for_each_cell(in, name, f, [&](const cell_spec& spec, const cell_records& rs) {
    if (records != nullptr) records->push_back(&rs);
    cells.push_back(build(spec, rs));
  });
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

// Schema version 6's keys of every frame's cells, and of every workload, null where a frame has
// none of its own (model/versions.hpp: version 7 writes only a frame's own keys).
constexpr const char* version6_cell_keys[] = {"heap",        "upstream_fallbacks_per_iteration",
                                              "placement",   "memory",
                                              "ns_per_pair", "memory_frame",
                                              "replay"};
constexpr const char* version6_workload_keys[] = {"footprint", "heap_spec", "placement",
                                                  "peer_verdicts"};

template <std::size_t N>
json with_nulls(json object, const char* const (&keys)[N]) {
  for (const char* key : keys)
    if (!object.contains(key)) object[key] = nullptr;
  return object;
}

std::optional<model::liveness_proof> proof_of(const json& j) {
  return model::read_json<std::optional<model::liveness_proof>>(j, "/live_allocator");
}
std::optional<model::worker_exit> exit_of(const json& j) {
  return model::read_json<std::optional<model::worker_exit>>(j, "/worker");
}

}  // namespace

json cell_json(const model::cell& c) {
  return with_nulls(model::write_json(c), version6_cell_keys);
}

json workload_json(const model::workload& w) {
  return with_nulls(model::write_json(w), version6_workload_keys);
}

json with_lab_cell_keys(json written) {
  for (const std::string& key : model::field_names<model::cell>())
    if (!written.contains(key)) written[key] = nullptr;
  return with_nulls(std::move(written), version6_cell_keys);
}

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

json fraction_or_null(double part, double whole) {
  return model::write_json(fraction_of(part, whole));
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

json size_histogram_json(const std::vector<std::uint64_t>& bands, const char* source) {
  return model::write_json(size_histogram_of(bands, source));
}

std::optional<model::interval> interval_of(const interval& i) {
  if (!i.valid()) return std::nullopt;
  return model::interval{i.low, i.high};
}

std::optional<model::estimate> estimate_of(const std::optional<ratio_estimate>& r) {
  if (!r) return std::nullopt;
  return model::estimate{r->value, interval_of(r->range)};
}

json interval_json(const interval& i) {
  return model::write_json(interval_of(i));
}

const json* find_cell(const json& workload, const std::string& strategy,
                      const std::string& malloc) {
  for (const auto& c : workload.at("cells"))
    if (c.at("strategy") == strategy && c.at("malloc") == malloc) return &c;
  return nullptr;
}

json estimate_json(const std::optional<ratio_estimate>& r) {
  return model::write_json(estimate_of(r));
}

}  // namespace alloclab::lab
