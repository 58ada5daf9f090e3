#include "results/results_builder.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "heap/cell.hpp"
#include "results/claims.hpp"
#include "results/environment.hpp"
#include "results/peer_verdict.hpp"
#include "results/ratio_intervals.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "workloads/heap_workloads.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
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
          {"placement_twin", false}};
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

std::string checksum_text(std::uint64_t sum) {
  return fmt::format("{:#018x}", sum);
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

json heap_workload_entry(const std::string& name, const run_plan& plan, json cells,
                         const std::string& checksum) {
  const heap_workload& w = *find_heap_workload(name);
  return {{"name", name},
          {"description", w.description},
          {"kind", "heap"},
          {"frame", "heap"},
          {"checksum", checksum},
          {"batch_size", 1},
          {"batched", false},
          {"footprint", nullptr},
          {"heap_spec", heap_spec_json(w, plan)},
          {"baseline", {{"strategy", "malloc"}, {"malloc", plan.mallocs.front().label}}},
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
  if (!plan.heap_workloads.empty())
    frames["heap"] = fmt::format(
        "each cell (kernel x sizes x malloc) runs alone in up to {} fresh processes; ns per pair "
        "has the NOOP loop subtracted; memory figures are medians over the processes",
        plan.sizes.processes);
  return frames;
}

json config_json(const run_plan& plan) {
  json mallocs = json::array();
  for (const auto& m : plan.mallocs) mallocs.push_back(m.label);
  std::vector<std::string> workloads = plan.lab_workloads;
  workloads.insert(workloads.end(), plan.heap_workloads.begin(), plan.heap_workloads.end());
  const bool heap_only = plan.lab_workloads.empty() && !plan.heap_workloads.empty();
  return {
      {"workloads", workloads},
      {"strategies", plan.lab_workloads.empty() ? std::vector<std::string>{} : plan.strategies},
      {"mallocs", mallocs},
      {"samples_per_repetition",
       heap_only ? plan.sizes.heap_iterations : plan.sizes.samples_per_repetition},
      {"repetitions", heap_only ? plan.sizes.heap_repetitions : plan.sizes.repetitions},
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

  const std::size_t repetitions = plan.lab_workloads.empty() && !plan.heap_workloads.empty()
                                      ? plan.sizes.heap_repetitions
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
      cells.push_back(f == frame::batch ? batch_cell(spec, by_cell[i])
                                        : heap_cell(spec, by_cell[i]));
    }
    return std::make_pair(std::move(cells), std::move(records));
  };
  for (const std::string& name : plan.lab_workloads)
    workloads.push_back(lab_workload(name, plan, run, cells_of(name, frame::batch).first));
  for (const std::string& name : plan.heap_workloads) {
    auto [cells, records] = cells_of(name, frame::heap);
    const std::string checksum = heap_checksum(records, cells);
    workloads.push_back(heap_workload_entry(name, plan, std::move(cells), checksum));
  }
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
  results["warnings"] = collect_warnings(results);
  results["claims"] = judge_claims(results, seed_claims());
  return results;
}

}  // namespace alloclab::lab
