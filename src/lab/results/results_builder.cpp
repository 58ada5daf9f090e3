#include "results/results_builder.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "frames/heap/cell.hpp"
#include "frames/memory/memory_workloads.hpp"
#include "results/claims.hpp"
#include "results/environment.hpp"
#include "results/peer_verdict.hpp"
#include "results/ratio_intervals.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "frames/heap/heap_workloads.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {

double amdahl_ratio(double share, double speedup) {
  return 1.0 / ((1.0 - share) + share / speedup);
}
namespace {

using json = nlohmann::json;

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

// The records of one cell, in part order, and the first one that has no number (if any).
struct cell_records {
  std::vector<const measurement_record*> parts;
  const measurement_record* broken() const {
    for (const auto* r : parts)
      if (r->status != "ok") return r;
    return nullptr;
  }
};

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

json fraction_or_null(double part, double whole) {
  return whole > 0 ? json(part / whole) : json(nullptr);
}

// Share of the RSS growth (peak - baseline) still resident, per settle time: medians over the
// processes of the bytes, then the ratio. Old worker documents lack the timed readings: null.
json retention(const std::vector<const heap_figures*>& parts, double baseline, double peak) {
  json out = json::object();
  for (const auto& [name, key] : {std::pair{"after_free_0ms", "rss_after_free_bytes"},
                                  std::pair{"after_free_100ms", "rss_100ms_after_free_bytes"},
                                  std::pair{"after_free_1s", "rss_1s_after_free_bytes"},
                                  std::pair{"after_purge", "rss_after_purge_bytes"}}) {
    std::vector<double> values;
    for (const auto* p : parts)
      if (p->memory.contains(key)) values.push_back(p->memory.at(key).get<double>());
    out[name] = values.size() == parts.size()
                    ? fraction_or_null(std::max(0.0, median_of(values) - baseline), peak - baseline)
                    : json(nullptr);
  }
  return out;
}

// The first process's RSS series, with the times of its last free and purge.
json rss_series_of(const heap_figures& first) {
  const json& m = first.memory;
  if (!m.contains("rss_series")) return nullptr;
  json s = m.at("rss_series");
  s["process"] = 0;
  s["last_free_ms"] = m.at("last_free_ms");
  s["purge_ms"] = m.at("purge_ms");
  return s;
}

// Heap frame memory: each figure is the median over the cell's processes.
json heap_memory(const std::vector<const heap_figures*>& parts) {
  auto median_field = [&](const char* key) {
    std::vector<double> values;
    for (const auto* p : parts) values.push_back(p->memory.at(key).get<double>());
    return median_of(values);
  };
  const double baseline = median_field("baseline_rss_bytes");
  const double peak = median_field("peak_rss_bytes");
  const double after_free = median_field("rss_after_free_bytes");
  const double after_purge = median_field("rss_after_purge_bytes");
  std::vector<double> live;
  for (const auto* p : parts) live.push_back(static_cast<double>(p->peak_live_bytes));
  auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
  return {{"baseline_rss_bytes", whole(baseline)},
          {"peak_rss_bytes", whole(peak)},
          {"peak_was_reset", parts.front()->memory.at("peak_was_reset")},
          {"rss_after_free_bytes", whole(after_free)},
          {"rss_after_purge_bytes", whole(after_purge)},
          {"peak_live_bytes", whole(median_of(live))},
          {"fragmentation", median_field("fragmentation")},
          {"fragmentation_net", median_field("fragmentation_net")},
          {"retained_after_free",
           fraction_or_null(std::max(0.0, after_free - baseline), peak - baseline)},
          {"retained_after_purge",
           fraction_or_null(std::max(0.0, after_purge - baseline), peak - baseline)},
          {"retention", retention(parts, baseline, peak)},
          {"rss_series", rss_series_of(*parts.front())},
          {"purge", parts.front()->memory.at("purge")},
          {"minor_faults", whole(median_field("minor_faults"))},
          {"major_faults", whole(median_field("major_faults"))},
          {"processes", parts.size()}};
}

// Heap frame: per-batch times summarised like a lab cell, ns per pair per repetition.
json heap_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  cell_measurement timing;
  std::vector<const heap_figures*> parts;
  std::vector<double> pair_reps;
  double faults = 0, batches = 0;
  for (const auto* r : rs.parts) {
    const heap_figures& h = *r->heap;
    parts.push_back(&h);
    append(timing.samples_ns, h.batch_ns);
    append(pair_reps, h.ns_per_pair_reps);
    const std::size_t n = h.iterations_per_repetition;
    for (std::size_t start = 0; n > 0 && start + n <= h.batch_ns.size(); start += n) {
      std::vector<double> rep(h.batch_ns.begin() + static_cast<std::ptrdiff_t>(start),
                              h.batch_ns.begin() + static_cast<std::ptrdiff_t>(start + n));
      std::sort(rep.begin(), rep.end());
      timing.repetition_medians_ns.push_back(percentile_sorted(rep, 0.5));
      timing.repetition_p99_ns.push_back(percentile_sorted(rep, 0.99));
      const summary s = summarize(rep);
      timing.repetition_means_ns.push_back(s.mean);
      timing.repetition_cv.push_back(s.cv);
    }
    faults += h.memory.at("minor_faults").get<double>();
    batches += static_cast<double>(h.batch_ns.size());
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell["timing"] = timing_json(timing, 1);
  cell["memory"] = heap_memory(parts);
  cell["os"] = {{"minor_faults_per_1000_iterations", batches > 0 ? 1000.0 * faults / batches : 0.0},
                {"peak_rss_growth_kib",
                 static_cast<std::int64_t>(
                     std::max(0.0, cell["memory"]["peak_rss_bytes"].get<double>() -
                                       cell["memory"]["baseline_rss_bytes"].get<double>()) /
                     1024)}};
  const double mean = pair_reps.empty() ? 0.0
                                        : std::accumulate(pair_reps.begin(), pair_reps.end(), 0.0) /
                                              static_cast<double>(pair_reps.size());
  cell["ns_per_pair"] = {{"mean", mean},
                         {"per_repetition", pair_reps},
                         {"pairs_per_repetition", parts.front()->pairs_per_repetition},
                         {"noop_batch_p50_ns", parts.front()->noop_batch_p50_ns},
                         {"total_bytes_per_repetition", parts.front()->total_bytes_per_repetition}};
  return cell;
}

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
  json cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  cell_measurement timing;
  std::vector<const replay_figures*> parts;
  std::vector<double> totals, walls;
  for (const auto* r : rs.parts) {
    const replay_figures& f = *r->replay;
    parts.push_back(&f);
    append(timing.samples_ns, f.ns_per_call);
    append(timing.repetition_medians_ns, f.ns_per_call);
    append(timing.repetition_p99_ns, f.ns_per_call);
    append(timing.repetition_means_ns, f.ns_per_call);
    timing.repetition_cv.insert(timing.repetition_cv.end(), f.ns_per_call.size(), 0.0);
    for (double s : f.call_seconds) totals.push_back(1e3 * s);
    for (double s : f.wall_seconds) walls.push_back(1e3 * s);
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell["timing"] = timing_json(timing, 1);
  const replay_figures& first = *parts.front();
  cell["replay"] = {
      {"calls", first.calls},
      {"skipped_calls", first.skipped},
      {"threads", first.threads},
      {"ns_per_call",
       {{"median", median_of(timing.samples_ns)}, {"per_repetition", timing.samples_ns}}},
      {"total_ms", {{"median", median_of(totals)}, {"per_repetition", totals}}},
      {"wall_ms", {{"median", median_of(walls)}, {"per_repetition", walls}}},
      {"memory", replay_memory(parts)}};
  return cell;
}

std::string checksum_text(std::uint64_t sum) {
  return fmt::format("{:#018x}", sum);
}

// The batch executor's per-workload calibrations (workload name -> calibration).
json calibrations_of(const run_records& run) {
  const json batch = run.frame_facts.value("batch", json::object());
  return batch.value("calibrations", json::object());
}

// Seed 003's figure for a workload: requests per log2 size band, or null.
json size_histogram_json(const std::vector<std::uint64_t>& bands, const char* source) {
  if (bands.empty()) return nullptr;
  return {{"bands", bands},
          {"band_rule", "band k counts request sizes in [2^k, 2^(k+1)) bytes; band 0 also 0"},
          {"source", source}};
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

// Same work or no number: heap cells whose kernels built a different checksum than the first.
std::string heap_checksum(const std::vector<const cell_records*>& cells, json& out_cells) {
  std::string reference;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i]->broken() != nullptr) continue;
    const std::string sum = checksum_text(cells[i]->parts.front()->heap->checksum);
    for (const auto* r : cells[i]->parts)
      if (checksum_text(r->heap->checksum) != sum) {
        out_cells[i]["status"] = "failed";
        out_cells[i]["reason"] = "checksum differs between processes";
      }
    if (reference.empty()) reference = sum;
    if (sum != reference) {
      const json cell = out_cells[i];
      out_cells[i] = unmeasured_cell(cell["strategy"], cell["malloc"], "failed",
                                     fmt::format("checksum mismatch: built {} where the first "
                                                 "allocator built {}",
                                                 sum, reference));
    }
  }
  return reference;
}

// The kernel's parameters as the heap worker reads them, less the per-cell malloc fields.
json heap_spec_json(const heap_workload& w, const run_plan& plan) {
  alloclab::heap::cell_spec spec;
  spec.kernel = w.kernel;
  spec.dist = w.dist;
  spec.config.touch = w.touch;
  spec.iterations = plan.sizes.heap_iterations;
  spec.repetitions = plan.sizes.heap_repetitions;
  spec.seed = plan.sizes.seed;
  json j = alloclab::heap::to_json(spec);
  for (const char* key : {"malloc", "preload", "keep_samples"}) j.erase(key);
  return j;
}

// The sizes every cell of a heap workload drew (the same seed): from its first measured process.
std::vector<std::uint64_t> heap_sizes(const std::vector<const cell_records*>& cells) {
  for (const auto* c : cells)
    if (c->broken() == nullptr) return c->parts.front()->heap->size_histogram_log2;
  return {};
}

json heap_workload_entry(const std::string& name, const run_plan& plan, json cells,
                         const std::string& checksum, const std::vector<std::uint64_t>& sizes) {
  const heap_workload& w = *find_heap_workload(name);
  return {{"name", name},
          {"description", w.description},
          {"kind", "heap"},
          {"frame", "heap"},
          {"checksum", checksum},
          {"batch_size", 1},
          {"batched", false},
          {"footprint", nullptr},
          {"size_histogram", size_histogram_json(sizes, "the kernel's precomputed request sizes")},
          {"heap_spec", heap_spec_json(w, plan)},
          {"baseline", {{"strategy", "malloc"}, {"malloc", plan.mallocs.front().label}}},
          {"cells", std::move(cells)}};
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

json interval_json(const interval& i) {
  return i.valid() ? json{{"low", i.low}, {"high", i.high}} : json(nullptr);
}

// Ratios against the baseline cell, each with a bootstrap interval over repetitions and the
// U test over repetition medians.
void add_comparison(json& cell, const json& baseline, bool power) {
  cell["vs_std"] = nullptr;
  if (cell["timing"].is_null() || baseline["timing"].is_null()) return;
  const auto x = baseline["timing"]["repetition_medians_ns"].get<std::vector<double>>();
  const auto y = cell["timing"]["repetition_medians_ns"].get<std::vector<double>>();
  const mann_whitney_result test = mann_whitney_u(x, y);
  json comparison = json::object();
  json intervals = {{"confidence", interval_confidence},
                    {"method",
                     "percentile bootstrap over repetitions (each from its cell's own "
                     "processes): ratio of medians of the per-repetition figure"}};
  for (const char* metric : {"speedup_p50", "speedup_mean", "p99_ratio", "jitter_ratio", "cv_ratio",
                             "throughput_ratio"}) {
    const auto r = estimate_ratio(metric, baseline, cell);
    comparison[metric] = r ? json(r->value) : json(nullptr);
    intervals[metric] = r ? interval_json(r->range) : json(nullptr);
  }
  // Heap-study cells: mean ns per malloc+free pair (NOOP subtracted) against the baseline malloc.
  if (cell.value("ns_per_pair", json()).is_object()) {
    const auto r = estimate_ratio("speedup_ns_per_pair", baseline, cell);
    comparison["speedup_ns_per_pair"] = r ? json(r->value) : json(nullptr);
    intervals["speedup_ns_per_pair"] = r ? interval_json(r->range) : json(nullptr);
  }
  comparison["intervals"] = std::move(intervals);
  comparison["mann_whitney_u"] = test.u;
  comparison["p_value"] = test.p_value;
  comparison["exact_test"] = test.exact;
  comparison["significant"] = power && test.p_value < significance_alpha;
  comparison["mark"] = significance_mark(test.p_value, power);
  cell["vs_std"] = std::move(comparison);
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
  json cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  cell_measurement timing;
  std::vector<const memory_figures*> parts;
  std::vector<double> seconds;
  for (const auto* r : rs.parts) {
    parts.push_back(&*r->memory);
    append(timing.samples_ns, r->memory->samples_ns);
    append(seconds, r->memory->repetition_seconds);
    add_repetitions(timing, *r->memory);
  }
  timing.timed_iterations = timing.samples_ns.size();
  cell["timing"] = timing_json(timing, parts.front()->operations_per_sample);
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

// What each frame's numbers include, for the report's reader.
json frame_descriptions(const run_plan& plan) {
  json frames = json::object();
  if (!plan.lab_workloads.empty())
    frames["batch"] = fmt::format(
        "each cell (workload x strategy x malloc) runs alone in {} fresh processes of its own, "
        "interleaved with the other cells; a number includes the workload's own work, page faults "
        "in the timed loop, buffer placement as that allocator chose it in a fresh process, and "
        "the proven live malloc; it does not depend on which other cells ran",
        plan.sizes.processes);
  if (has_frame(plan, frame::serve))
    frames["serve"] = fmt::format(
        "each variant (workload x strategy x malloc) is served by {} fresh `alloclab serve` "
        "processes, one after another; each is warmed up, then driven by hey and wrk ({} "
        "connections, {} s each, closed loop) and an open-loop constant-rate ladder; one request "
        "runs one iteration from a reset arena; a number includes HTTP parsing, the server's "
        "threads, syscalls and the loopback network, and the load generators run on the same "
        "machine",
        plan.sizes.serve_repetitions, serve_connections, plan.sizes.serve_duration_s);
  if (!plan.heap_workloads.empty())
    frames["heap"] = fmt::format(
        "each cell (kernel x sizes x malloc) runs alone in up to {} fresh processes; ns per pair "
        "has the NOOP loop subtracted; memory figures are medians over the processes",
        plan.sizes.processes);
  if (!plan.memory_workloads.empty())
    frames["memory"] = fmt::format(
        "each cell (memory workload x strategy x malloc) runs alone in up to {} fresh processes; "
        "memory is sampled every 10 ms through the process; times per sample include the "
        "allocator's purges where the strategy purges; budget {} bytes ({})",
        plan.sizes.processes, plan.memory_budget.bytes, plan.memory_budget.source);
  if (!plan.replay.trace.empty())
    frames["replay"] = fmt::format(
        "each cell (trace x malloc, or trace x in-process resource under {}) replays the whole "
        "trace, each recorded thread on a thread of its own, {} times in up to {} fresh "
        "processes; ns per call excludes decoding and cross-thread waits; every block is written "
        "once when allocated; RSS readings come from each process's first replay",
        plan.mallocs.front().label, plan.sizes.replay_repetitions, plan.sizes.processes);
  return frames;
}

json config_json(const run_plan& plan) {
  json mallocs = json::array();
  for (const auto& m : plan.mallocs) mallocs.push_back(m.label);
  std::vector<std::string> workloads = plan.lab_workloads;
  workloads.insert(workloads.end(), plan.heap_workloads.begin(), plan.heap_workloads.end());
  workloads.insert(workloads.end(), plan.memory_workloads.begin(), plan.memory_workloads.end());
  const bool heap_only = plan.lab_workloads.empty() && !plan.heap_workloads.empty();
  const bool replay_only =
      plan.lab_workloads.empty() && plan.heap_workloads.empty() && !plan.replay.trace.empty();
  if (!plan.replay.trace.empty()) workloads.push_back(plan.replay.name);
  std::vector<std::string> strategies =
      plan.lab_workloads.empty() ? std::vector<std::string>{} : plan.strategies;
  if (replay_only) strategies = plan.replay.strategies;
  return {
      {"workloads", workloads},
      {"strategies", strategies},
      {"mallocs", mallocs},
      {"samples_per_repetition", replay_only ? 1
                                 : heap_only ? plan.sizes.heap_iterations
                                             : plan.sizes.samples_per_repetition},
      {"repetitions", replay_only                  ? plan.sizes.replay_repetitions
                      : heap_only                  ? plan.sizes.heap_repetitions
                      : plan.lab_workloads.empty() ? plan.sizes.memory_repetitions
                                                   : plan.sizes.repetitions},
      {"replay", plan.replay.trace.empty() ? json(nullptr)
                                           : json{{"trace", plan.replay.trace},
                                                  {"repetitions", plan.sizes.replay_repetitions},
                                                  {"strategies", plan.replay.strategies}}},
      {"processes", plan.sizes.processes},
      {"seed", plan.sizes.seed},
      {"quick", plan.sizes.quick},
      {"counted_iterations", plan.sizes.counted_iterations},
      {"skip_missing", plan.skip_missing},
      {"placement_twin", plan.placement_twin.empty() ? json(nullptr) : json(plan.placement_twin)},
      {"cell_timeout_seconds", static_cast<double>(plan.cell_timeout.count()) / 1000.0},
      {"heap", plan.heap_workloads.empty() ? json(nullptr)
                                           : json{{"iterations", plan.sizes.heap_iterations},
                                                  {"repetitions", plan.sizes.heap_repetitions},
                                                  {"strategy", heap_strategy}}}};
}

// ---- Serve frame: one cell per variant, figures over its fresh server processes ----

// The median over repetitions of a number at `pointer` in each JSON; null when one lacks it.
json median_at(const std::vector<const json*>& runs, const char* pointer) {
  std::vector<double> values;
  for (const json* run : runs) {
    const json& v = run->value(json::json_pointer(pointer), json());
    if (!v.is_number()) return nullptr;
    values.push_back(v.get<double>());
  }
  return values.empty() ? json(nullptr) : json(median_of(values));
}

std::vector<double> series_at(const std::vector<const json*>& runs, const char* pointer) {
  std::vector<double> values;
  for (const json* run : runs) {
    const json& v = run->value(json::json_pointer(pointer), json());
    if (v.is_number()) values.push_back(v.get<double>());
  }
  return values;
}

std::uint64_t sum_at(const std::vector<const json*>& runs, const char* key) {
  std::uint64_t total = 0;
  for (const json* run : runs) total += run->value(key, std::uint64_t{0});
  return total;
}

// One generator over the repetitions (load_result JSONs): medians, sums and the per-repetition
// series the intervals are drawn from.
json generator_summary(const std::vector<const json*>& runs) {
  if (runs.empty()) return nullptr;
  json per_repetition = json::object();
  for (const auto& [name, pointer] :
       {std::pair{"throughput_rps", "/throughput_rps"}, std::pair{"p50_ms", "/latency_ms/p50"},
        std::pair{"p99_ms", "/latency_ms/p99"}, std::pair{"mean_ms", "/latency_ms/mean"},
        std::pair{"workload_mean_us", "/server/workload_mean_us"},
        std::pair{"cpu_us_per_request", "/server/cpu_us_per_request"}})
    per_repetition[name] = series_at(runs, pointer);
  return {{"generator", runs.front()->value("generator", std::string())},
          {"command", runs.front()->value("command", json::array())},
          {"requests", sum_at(runs, "requests")},
          {"errors", sum_at(runs, "errors")},
          {"duration_s", median_at(runs, "/duration_s")},
          {"target_rate_rps", median_at(runs, "/target_rate_rps")},
          {"throughput_rps", median_at(runs, "/throughput_rps")},
          {"p50_ms", median_at(runs, "/latency_ms/p50")},
          {"p90_ms", median_at(runs, "/latency_ms/p90")},
          {"p99_ms", median_at(runs, "/latency_ms/p99")},
          {"p999_ms", median_at(runs, "/latency_ms/p99.9")},
          {"mean_ms", median_at(runs, "/latency_ms/mean")},
          {"server",
           {{"workload_mean_us", median_at(runs, "/server/workload_mean_us")},
            {"workload_p99_us", median_at(runs, "/server/workload_p99_us")},
            {"cpu_us_per_request", median_at(runs, "/server/cpu_us_per_request")},
            {"share_of_cpu", median_at(runs, "/server/share_of_cpu")},
            {"share_of_latency", median_at(runs, "/server/share_of_latency")}}},
          {"per_repetition", per_repetition}};
}

json serve_cell(const cell_spec& spec, const cell_records& rs) {
  json cell = cell_head(spec, rs);
  for (const char* key : {"hey", "wrk", "ladder", "server", "batch"}) cell[key] = nullptr;
  if (rs.broken() != nullptr) return cell;
  std::vector<const serve_repetition*> reps;
  for (const auto* r : rs.parts)
    for (const auto& rep : r->serve->repetitions) reps.push_back(&rep);
  if (reps.empty()) return cell;
  std::vector<const json*> hey, wrk;
  for (const auto* rep : reps) {
    hey.push_back(&rep->hey);
    wrk.push_back(&rep->wrk);
  }
  cell["processes"] = reps.size();  // one fresh server per repetition
  cell["hey"] = generator_summary(hey);
  cell["wrk"] = generator_summary(wrk);
  json ladder = json::array();
  for (std::size_t step = 0; step < reps.front()->ladder.size(); ++step) {
    std::vector<const json*> runs;
    for (const auto* rep : reps)
      if (step < rep->ladder.size()) runs.push_back(&rep->ladder[step]);
    ladder.push_back(generator_summary(runs));
  }
  cell["ladder"] = std::move(ladder);
  std::vector<double> saturation;
  std::uint64_t requests = 0, errors = 0;
  for (const auto* rep : reps) {
    saturation.push_back(rep->saturation_rps);
    requests += rep->stats.value("requests", std::uint64_t{0});
    errors += rep->stats.value("errors", std::uint64_t{0});
  }
  cell["server"] = {{"saturation_rps", median_of(saturation)},
                    {"requests", requests},
                    {"errors", errors},
                    {"pinned_cpu", reps.front()->stats.value("pinned_cpu", json())},
                    {"pinning", rs.parts.front()->serve->pinning}};
  return cell;
}

json serve_estimate(const json& base, const json& cell, const char* generator, const char* figure,
                    bool higher_is_better) {
  const auto series = [&](const json& c) {
    const json& v = c.value(
        json::json_pointer(fmt::format("/{}/per_repetition/{}", generator, figure)), json());
    return v.is_array() ? v.get<std::vector<double>>() : std::vector<double>{};
  };
  std::vector<double> b = series(base), c = series(cell);
  if (!higher_is_better) std::swap(b, c);  // > 1 favours the candidate
  const auto r = ratio_of_repetition_medians(c, b);
  if (!r) return nullptr;
  return {{"value", r->value},
          {"interval", interval_json(r->range)},
          {"repetitions", std::min(b.size(), c.size())}};
}

// Each variant against the baseline variant, over repetitions (fresh servers).
json serve_comparison(const json& base, const json& cell) {
  if (cell["hey"].is_null() || base["hey"].is_null()) return nullptr;
  return {{"throughput_ratio_hey", serve_estimate(base, cell, "hey", "throughput_rps", true)},
          {"throughput_ratio_wrk", serve_estimate(base, cell, "wrk", "throughput_rps", true)},
          {"p50_ratio_hey", serve_estimate(base, cell, "hey", "p50_ms", false)},
          {"p99_ratio_hey", serve_estimate(base, cell, "hey", "p99_ms", false)},
          {"p50_ratio_wrk", serve_estimate(base, cell, "wrk", "p50_ms", false)},
          {"p99_ratio_wrk", serve_estimate(base, cell, "wrk", "p99_ms", false)},
          {"workload_time_ratio", serve_estimate(base, cell, "hey", "workload_mean_us", false)},
          {"cpu_per_request_ratio", serve_estimate(base, cell, "hey", "cpu_us_per_request", false)},
          {"intervals",
           "percentile bootstrap over repetitions (one fresh server each): ratio of medians; "
           "> 1 favours the candidate"}};
}

// The same variant in the batch frame, and Amdahl's law: a workload that is a share f of the
// server's CPU per request, made s times faster (the batch speedup), makes the server
// 1 / ((1 - f) + f / s) times faster; closed-loop throughput on a saturated server follows that.
json batch_beside(const json& serve_base, const json& cell, const json* batch_workload) {
  const json* batch = nullptr;
  if (batch_workload != nullptr)
    for (const auto& c : batch_workload->at("cells"))
      if (c["strategy"] == cell["strategy"] && c["malloc"] == cell["malloc"] &&
          !c.value("placement_twin", false))
        batch = &c;
  if (batch == nullptr || batch->at("timing").is_null()) return nullptr;
  json out = {{"p50_ns", batch->at("timing").at("p50_ns")},
              {"speedup_p50", nullptr},
              {"workload_share", nullptr},
              {"allocator_share_removed", nullptr},
              {"predicted_serve_ratio", nullptr},
              {"predicted_serve_interval", nullptr},
              {"measured_serve_ratio", nullptr}};
  const json& vs = batch->at("vs_std");
  if (vs.is_object() && vs["speedup_p50"].is_number())
    out["speedup_p50"] = {{"value", vs["speedup_p50"]},
                          {"interval", vs["intervals"]["speedup_p50"]},
                          {"mark", vs["mark"]}};
  const json& share = serve_base.value(json::json_pointer("/hey/server/share_of_cpu"), json());
  if (share.is_number()) out["workload_share"] = share;
  if (share.is_number() && vs.is_object() && vs["speedup_p50"].is_number()) {
    const double f = std::clamp(share.get<double>(), 0.0, 1.0);
    const double s = vs["speedup_p50"].get<double>();
    // The share of the baseline's request time the variant's allocation strategy takes away
    // (negative: adds): what is left of a batch speedup once a request does everything else too.
    const auto amdahl = [f](double speedup) { return amdahl_ratio(f, speedup); };
    out["allocator_share_removed"] = f * (1.0 - 1.0 / s);
    out["predicted_serve_ratio"] = amdahl(s);
    // Amdahl rises with s, so the batch interval's ends bound the prediction (f held fixed).
    const json& range = out["speedup_p50"]["interval"];
    if (range.is_object())
      out["predicted_serve_interval"] = {{"low", amdahl(range["low"].get<double>())},
                                         {"high", amdahl(range["high"].get<double>())}};
  }
  if (cell["vs_std"].is_object())
    out["measured_serve_ratio"] = cell["vs_std"]["throughput_ratio_hey"];
  return out;
}

json serve_results(const run_plan& plan, std::map<std::size_t, cell_records>& by_cell,
                   const json& workloads) {
  if (!has_frame(plan, frame::serve)) return nullptr;
  json serve_workloads = json::array();
  for (const std::string& name : plan.lab_workloads) {
    json cells = json::array();
    for (std::size_t i = 0; i < plan.cells.size(); ++i) {
      const cell_spec& spec = plan.cells[i];
      if (spec.workload == name && spec.frame == frame::serve && by_cell.count(i) != 0)
        cells.push_back(serve_cell(spec, by_cell[i]));
    }
    const json baseline = {{"strategy", baseline_strategy}, {"malloc", plan.mallocs.front().label}};
    const json* base = nullptr;
    for (const auto& c : cells)
      if (c["strategy"] == baseline["strategy"] && c["malloc"] == baseline["malloc"]) base = &c;
    const json* batch_workload = nullptr;
    for (const auto& w : workloads)
      if (w["name"] == name && w["kind"] == "lab") batch_workload = &w;
    json compared = cells;
    for (auto& c : compared) {
      c["vs_std"] = base != nullptr && c != *base ? serve_comparison(*base, c) : json(nullptr);
      if (base != nullptr) c["batch"] = batch_beside(*base, c, batch_workload);
    }
    serve_workloads.push_back(
        {{"name", name}, {"baseline", baseline}, {"cells", std::move(compared)}});
  }
  std::vector<double> fractions(std::begin(serve_ladder_fractions),
                                std::end(serve_ladder_fractions));
  return {{"duration_s", plan.sizes.serve_duration_s},
          {"connections", serve_connections},
          {"repetitions", plan.sizes.serve_repetitions},
          {"ladder_fractions", fractions},
          {"workloads", std::move(serve_workloads)}};
}

}  // namespace

void add_comparisons(json& workload, bool power) {
  const json& wanted = workload["baseline"];
  json* baseline = nullptr;
  for (auto& c : workload["cells"])
    if (c["strategy"] == wanted["strategy"] && c["malloc"] == wanted["malloc"]) baseline = &c;
  for (auto& c : workload["cells"]) {
    if (baseline != nullptr && &c != baseline)
      add_comparison(c, *baseline, power);
    else
      c["vs_std"] = nullptr;
  }
}

std::vector<std::string> collect_warnings(const json& results) {
  std::vector<std::string> warnings;
  if (results.value("debug_build", false))
    warnings.push_back("DEBUG build: these numbers measure unoptimised code and mean nothing");
  if (results.at("config").value("quick", false))
    warnings.push_back(
        "SMOKE TEST (--quick): small samples, for checking that the lab works; do not quote "
        "these numbers");
  const json& sig = results.at("significance");
  if (!sig.at("enough_repetitions").get<bool>())
    warnings.push_back(
        fmt::format("{} repetitions are too few for the Mann-Whitney U test to reach p < {} "
                    "(smallest possible p = {:.3f}); significance marks are '?'",
                    results.at("config").at("repetitions").get<std::size_t>(), significance_alpha,
                    sig.at("smallest_possible_p").get<double>()));
  const std::size_t mallocs = results.at("config").value("mallocs", json::array()).size();
  for (const auto& w : results.at("workloads"))
    for (const auto& c : w.at("cells")) {
      const std::string status = c.at("status");
      std::string where = fmt::format("{} / {}", w.at("name").get<std::string>(),
                                      c.at("strategy").get<std::string>());
      if (mallocs > 1 || c.value("malloc", "glibc") != "glibc")
        where += " @ " + c.value("malloc", std::string("glibc"));
      if (status != "ok" && status != "not_applicable")
        warnings.push_back(
            fmt::format("{}: {}{}", where, status == "overflowed" ? "" : status + ": ",
                        c.at("reason").is_string() ? c.at("reason").get<std::string>() : ""));
      if (c.at("warning").is_string())
        warnings.push_back(fmt::format("{}: {}", where, c.at("warning").get<std::string>()));
    }
  static const json no_workloads = json::array();
  const bool served = results.contains("serve") && results.at("serve").is_object();
  for (const auto& w : served ? results.at("serve").at("workloads") : no_workloads)
    for (const auto& c : w.at("cells")) {
      const std::string where =
          fmt::format("serve {} / {} @ {}", w.at("name").get<std::string>(),
                      c.at("strategy").get<std::string>(), c.at("malloc").get<std::string>());
      if (c.at("status") != "ok")
        warnings.push_back(
            fmt::format("{}: {}: {}", where, c.at("status").get<std::string>(),
                        c.at("reason").is_string() ? c.at("reason").get<std::string>() : ""));
      for (const char* generator : {"hey", "wrk"})
        if (c.at(generator).is_object() && c.at(generator).at("errors").get<std::uint64_t>() > 0)
          warnings.push_back(fmt::format("{}: {} saw {} errors", where, generator,
                                         c.at(generator).at("errors").get<std::uint64_t>()));
    }
  return warnings;
}

bool test_has_power(std::size_t repetitions) {
  return mann_whitney_min_p(repetitions, repetitions) < significance_alpha;
}

std::string significance_mark(double p_value, bool power) {
  if (!power) return "?";
  if (p_value < 0.01) return "**";
  if (p_value < significance_alpha) return "*";
  return "n.s.";
}

json build_results(const run_plan& plan, const run_records& run, const results_context& context) {
  std::map<std::size_t, cell_records> by_cell;
  for (std::size_t i = 0; i < run.records.size(); ++i)
    by_cell[plan.schedule.at(i).cell].parts.push_back(&run.records[i]);
  for (auto& [cell, rs] : by_cell)
    std::sort(rs.parts.begin(), rs.parts.end(),
              [](const auto* a, const auto* b) { return a->part < b->part; });

  const bool replay_only =
      plan.lab_workloads.empty() && plan.heap_workloads.empty() && !plan.replay.trace.empty();
  const std::size_t repetitions = replay_only ? plan.sizes.replay_repetitions
                                  : plan.lab_workloads.empty() && !plan.heap_workloads.empty()
                                      ? plan.sizes.heap_repetitions
                                  : plan.lab_workloads.empty() ? plan.sizes.memory_repetitions
                                                               : plan.sizes.repetitions;
  const bool power = test_has_power(repetitions);
  json workloads = json::array();
  auto cells_of = [&](const std::string& name, frame f) {
    json cells = json::array();
    std::vector<const cell_records*> records;
    for (std::size_t i = 0; i < plan.cells.size(); ++i) {
      const cell_spec& spec = plan.cells[i];
      if (spec.workload != name || spec.frame != f || by_cell.count(i) == 0) continue;
      records.push_back(&by_cell[i]);
      cells.push_back(f == frame::batch    ? batch_cell(spec, by_cell[i])
                      : f == frame::heap   ? heap_cell(spec, by_cell[i])
                      : f == frame::memory ? memory_cell(spec, by_cell[i])
                                           : replay_cell(spec, by_cell[i]));
    }
    return std::make_pair(std::move(cells), std::move(records));
  };
  for (const std::string& name : plan.lab_workloads)
    if (has_frame(plan, frame::batch))
      workloads.push_back(lab_workload(name, plan, run, cells_of(name, frame::batch).first));
  for (const std::string& name : plan.heap_workloads) {
    auto [cells, records] = cells_of(name, frame::heap);
    const std::string checksum = heap_checksum(records, cells);
    workloads.push_back(
        heap_workload_entry(name, plan, std::move(cells), checksum, heap_sizes(records)));
  }
  for (const std::string& name : plan.memory_workloads)
    workloads.push_back(memory_workload_entry(name, plan, cells_of(name, frame::memory).first));
  if (!plan.replay.trace.empty())
    workloads.push_back(
        replay_workload_entry(plan, cells_of(plan.replay.name, frame::replay).first));
  for (auto& w : workloads) {
    add_comparisons(w, power);
    if (w.at("kind") == "lab" && !plan.placement_twin.empty())
      w["placement"] = placement_analysis(w, native_malloc, plan.placement_twin);
    else
      w["placement"] = nullptr;
    w["peer_verdicts"] = w.at("kind") == "lab" ? peer_verdicts(w, power) : json(nullptr);
  }

  clock_profile clock;
  for (const json& c : calibrations_of(run)) {
    clock.overhead_ns = std::max(clock.overhead_ns, c.at("clock").at("overhead_ns").get<double>());
    clock.resolution_ns =
        std::max(clock.resolution_ns, c.at("clock").at("resolution_ns").get<double>());
  }

  json environment = describe_environment(context.build);
  environment["placement"] = context.placement;
  json results = {
      {"schema", "alloclab-results"},
      {"schema_version", results_schema_version},
      {"created_utc", context.created_utc},
      {"command", context.command_line},
      {"debug_build", !context.build.benchmark_ready()},
      {"smoke_test", plan.sizes.quick},
      {"config", config_json(plan)},
      {"frames", frame_descriptions(plan)},
      {"environment", environment},
      {"timer", describe_timer(clock)},
      {"duration_seconds", run.duration_seconds},
      {"significance",
       {{"test", "Mann-Whitney U, two-sided, over per-repetition medians"},
        {"alpha", significance_alpha},
        {"interval_confidence", interval_confidence},
        {"smallest_possible_p", mann_whitney_min_p(repetitions, repetitions)},
        {"enough_repetitions", power}}},
      {"warnings", json::array()},
      {"workloads", std::move(workloads)},
      {"claims", json::array()},
  };
  results["serve"] = serve_results(plan, by_cell, results["workloads"]);
  results["warnings"] = collect_warnings(results);
  results["claims"] = judge_claims(results, seed_claims());
  return results;
}

}  // namespace alloclab::lab
