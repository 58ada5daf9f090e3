#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "frames/heap/cell.hpp"
#include "frames/heap/run_options.hpp"
#include "frames/heap/process_figures.hpp"
#include "frames/heap/figures.hpp"
#include "frames/heap/frame.hpp"
#include "frames/heap/heap_retention.hpp"
#include "frames/heap/heap_workloads.hpp"
#include "frames/heap/retention_phase.hpp"
#include "results/cell_parts.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

// The heap frame's part of results.json: its cells, workloads and comparisons.
namespace alloclab::lab {
namespace {

using json = nlohmann::json;

using reading_field = std::uint64_t heap_memory_reading::*;

// Each process's memory reading, in part order.
std::vector<heap_memory_reading> readings_of(const std::vector<const heap_figures*>& parts) {
  std::vector<heap_memory_reading> out;
  for (const heap_figures* p : parts)
    out.push_back(model::read_json<heap_memory_reading>(p->memory, "/memory"));
  return out;
}

template <class Get>
std::vector<double> values_of(const std::vector<heap_memory_reading>& rs, Get get) {
  std::vector<double> values;
  for (const heap_memory_reading& r : rs)
    if (const std::optional<double> v = get(r)) values.push_back(*v);
  return values;
}

double median_field(const std::vector<heap_memory_reading>& rs, reading_field field) {
  return median_of(values_of(
      rs, [field](const heap_memory_reading& r) { return static_cast<double>(r.*field); }));
}

// Share of the RSS growth (peak - baseline) still resident, per settle time: medians over the
// processes that took the reading (a budgeted run's first process each), then the ratio; null
// when none did.
retention_figures retention(const std::vector<heap_memory_reading>& rs, double baseline,
                            double peak) {
  const auto share = [&](auto get) -> std::optional<double> {
    const std::vector<double> values = values_of(rs, get);
    if (values.empty()) return std::nullopt;
    return fraction_of(std::max(0.0, median_of(values) - baseline), peak - baseline);
  };
  const auto settled = [](model::omittable<std::uint64_t> heap_memory_reading::*field) {
    return [field](const heap_memory_reading& r) -> std::optional<double> {
      if (!(r.*field)) return std::nullopt;
      return static_cast<double>(*(r.*field));
    };
  };
  const auto always = [](reading_field field) {
    return [field](const heap_memory_reading& r) -> std::optional<double> {
      return static_cast<double>(r.*field);
    };
  };
  retention_figures r;
  r.after_free_0ms = share(always(&heap_memory_reading::rss_after_free_bytes));
  r.after_free_100ms = share(settled(&heap_memory_reading::rss_100ms_after_free_bytes));
  r.after_free_1s = share(settled(&heap_memory_reading::rss_1s_after_free_bytes));
  r.after_purge = share(always(&heap_memory_reading::rss_after_purge_bytes));
  return r;
}

// The first process's RSS series, with the times of its last free and purge.
model::rss_series rss_series_of(const heap_memory_reading& first) {
  model::rss_series s = first.rss_series;
  s.process = 0;
  s.last_free_ms.emplace(first.last_free_ms);
  s.purge_ms.emplace(first.purge_ms);
  return s;
}

// Heap frame memory: each figure is the median over the cell's processes.
heap_memory heap_memory_of(const std::vector<const heap_figures*>& parts,
                           const std::vector<heap_memory_reading>& rs) {
  const double baseline = median_field(rs, &heap_memory_reading::baseline_rss_bytes);
  const double peak = median_field(rs, &heap_memory_reading::peak_rss_bytes);
  const double after_free = median_field(rs, &heap_memory_reading::rss_after_free_bytes);
  const double after_purge = median_field(rs, &heap_memory_reading::rss_after_purge_bytes);
  std::vector<double> live;
  for (const auto* p : parts) live.push_back(static_cast<double>(p->peak_live_bytes));
  auto whole = [](double v) { return static_cast<std::uint64_t>(std::llround(v)); };
  auto median_or_null = [&rs](std::optional<double> heap_memory_reading::*field) {
    const std::vector<double> values =
        values_of(rs, [field](const heap_memory_reading& r) { return r.*field; });
    return values.empty() ? std::nullopt : std::optional<double>(median_of(values));
  };
  const heap_memory_reading& first = rs.front();
  heap_memory m;
  m.baseline_rss_bytes = whole(baseline);
  m.peak_rss_bytes = whole(peak);
  m.peak_was_reset = first.peak_was_reset;
  m.rss_after_free_bytes = whole(after_free);
  m.rss_after_purge_bytes = whole(after_purge);
  m.peak_live_bytes = whole(median_of(live));
  m.fragmentation = median_or_null(&heap_memory_reading::fragmentation);
  m.fragmentation_net = median_or_null(&heap_memory_reading::fragmentation_net);
  m.retained_after_free = fraction_of(std::max(0.0, after_free - baseline), peak - baseline);
  m.retained_after_purge = fraction_of(std::max(0.0, after_purge - baseline), peak - baseline);
  m.retention = retention(rs, baseline, peak);
  m.rss_series = rss_series_of(first);
  m.purge = first.purge;
  m.minor_faults = whole(median_field(rs, &heap_memory_reading::minor_faults));
  m.major_faults = whole(median_field(rs, &heap_memory_reading::major_faults));
  m.processes = parts.size();
  return m;
}

// A measured heap cell's retention figures, as its memory (heap_memory_of) holds them.
cell_retention retention_of(const cell_spec& spec, const cell_records& records) {
  const std::vector<heap_memory_reading> rs = readings_of(figures_of<heap_figures>(records));
  const double baseline = median_field(rs, &heap_memory_reading::baseline_rss_bytes);
  const double peak = median_field(rs, &heap_memory_reading::peak_rss_bytes);
  return {spec.malloc.label, retention(rs, baseline, peak), rs.front().purge.method};
}

pair_cost pair_cost_of(const std::vector<const heap_figures*>& parts,
                       const std::vector<double>& pair_reps) {
  pair_cost c;
  c.mean = pair_reps.empty() ? 0.0
                             : std::accumulate(pair_reps.begin(), pair_reps.end(), 0.0) /
                                   static_cast<double>(pair_reps.size());
  c.per_repetition = pair_reps;
  c.pairs_per_repetition = parts.front()->pairs_per_repetition;
  c.noop_batch_p50_ns = parts.front()->noop_batch_p50_ns;
  c.total_bytes_per_repetition = parts.front()->total_bytes_per_repetition;
  return c;
}

// Heap frame: per-batch times summarised like a lab cell, ns per pair per repetition.
model::cell heap_cell(const cell_spec& spec, const cell_records& rs) {
  model::cell cell = cell_head(spec, rs);
  if (rs.broken() != nullptr) return cell;
  const std::vector<const heap_figures*> parts = figures_of<heap_figures>(rs);
  cell_measurement timing;
  std::vector<double> pair_reps;
  double faults = 0, batches = 0;
  for (const heap_figures* part : parts) {
    const heap_figures& h = *part;
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
    batches += static_cast<double>(h.batch_ns.size());
  }
  const std::vector<heap_memory_reading> readings = readings_of(parts);
  for (const heap_memory_reading& r : readings) faults += static_cast<double>(r.minor_faults);
  timing.timed_iterations = timing.samples_ns.size();
  cell.timing = timing_of(timing, 1);
  heap_cell_figures figures{heap_memory_of(parts, readings), pair_cost_of(parts, pair_reps)};
  const double growth = std::max(0.0, static_cast<double>(figures.memory->peak_rss_bytes) -
                                          static_cast<double>(figures.memory->baseline_rss_bytes));
  cell.os = model::os_figures{batches > 0 ? 1000.0 * faults / batches : 0.0,
                              static_cast<std::int64_t>(growth / 1024)};
  cell.figures = model::figures::of(std::move(figures));
  return cell;
}

// A heap workload's checksum: the first measured cell's, and each cell that lost its number for
// building another (in cell order).
struct checksum_outcome {
  std::string reference;
  std::vector<bool> failed;
};

// Same work or no number: heap cells whose kernels built a different checksum than the first.
checksum_outcome heap_checksum(const std::vector<const cell_records*>& cells,
                               std::vector<model::cell>& out_cells) {
  std::string reference;
  std::vector<bool> failed(cells.size(), false);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i]->broken() != nullptr) continue;
    const std::string sum =
        checksum_text(cells[i]->parts.front()->figures.get<heap_figures>()->checksum);
    for (const auto* r : cells[i]->parts)
      if (checksum_text(r->figures.get<heap_figures>()->checksum) != sum) {
        out_cells[i].head.status = "failed";
        out_cells[i].head.reason = "checksum differs between processes";
        failed[i] = true;
      }
    if (reference.empty()) reference = sum;
    if (sum != reference) {
      const model::cell_head head = out_cells[i].head;
      out_cells[i] = unmeasured_cell(head.strategy, head.malloc, "failed",
                                     fmt::format("checksum mismatch: built {} where the first "
                                                 "allocator built {}",
                                                 sum, reference));
      failed[i] = true;
    }
  }
  return {reference, failed};
}

// The kernel's parameters as the heap worker reads them, less the per-cell malloc fields.
json heap_spec_json(const heap_workload& w, const run_plan& plan) {
  alloclab::heap::cell_spec spec;
  spec.kernel = w.kernel;
  spec.dist = w.dist;
  spec.config.touch = w.touch;
  spec.iterations = heap_sizes_of(plan).iterations;
  spec.repetitions = heap_sizes_of(plan).repetitions;
  spec.seed = plan.sizes.seed;
  json j = alloclab::heap::to_json(spec);
  for (const char* key : {"malloc", "preload", "keep_samples"}) j.erase(key);
  return j;
}

// The sizes every cell of a heap workload drew (the same seed): from its first measured process.
std::vector<std::uint64_t> drawn_sizes(const std::vector<const cell_records*>& cells) {
  for (const auto* c : cells)
    if (c->broken() == nullptr)
      return c->parts.front()->figures.get<heap_figures>()->size_histogram_log2;
  return {};
}

model::workload heap_workload_entry(const std::string& name, const run_plan& plan,
                                    std::vector<model::cell> cells, const std::string& checksum,
                                    const std::vector<std::uint64_t>& sizes) {
  const heap_workload& w = *find_heap_workload(name);
  model::workload entry;
  entry.name = name;
  entry.description = w.description;
  entry.kind = "heap";
  entry.frame = "heap";
  entry.checksum = checksum;
  entry.baseline = {"malloc", plan.mallocs.front().label};
  heap_workload_figures figures;
  figures.heap_spec = model::read_json<heap_spec_figures>(heap_spec_json(w, plan), "/heap_spec");
  figures.size_histogram = size_histogram_of(sizes, "the kernel's precomputed request sizes");
  entry.figures = model::figures::of(std::move(figures));
  entry.cells = std::move(cells);
  return entry;
}

// The heap cells of workload `name` that kept their number (none broken, none failed by
// `checksums`), in cell order.
void add_measured_cells(const frame_results_input& in, const std::string& name,
                        const checksum_outcome& checksums, std::vector<cell_retention>& out) {
  std::size_t i = 0;
  for_each_cell(in, name, frame::heap, [&](const cell_spec& spec, const cell_records& rs) {
    if (rs.broken() == nullptr && !checksums.failed.at(i)) out.push_back(retention_of(spec, rs));
    ++i;
  });
}

// The heap frame's top-level part: the retention summary of its cells and of its timelines.
heap_document_figures heap_document(const frame_results_input& in,
                                    const std::vector<cell_retention>& cells) {
  auto facts = model::read_json<retention_phase_facts>(
      in.run.frame_facts.value("heap", json::object()), "/frame_facts/heap");
  heap_document_figures d;
  d.heap_retention = heap_retention_summary(cells);
  d.retention_timelines.emplace(retention_timelines_summary(
      std::move(facts.retention_timelines), heap_sizes_of(in.plan).retention_horizon_s));
  return d;
}

// The heap-study sizes, in the results' config (model: heap_config_figures).
heap_config_figures heap_config(const run_plan& plan) {
  heap_config_figures part;
  part.heap.iterations = heap_sizes_of(plan).iterations;
  part.heap.repetitions = heap_sizes_of(plan).repetitions;
  part.heap.strategy = heap_strategy;
  return part;
}

}  // namespace

std::string describe_heap_frame(const run_plan& plan) {
  return fmt::format(
      "each cell (kernel x sizes x malloc) runs alone in up to {} fresh processes; a repetition "
      "times {} batches of 100 pairs (the seed's study: {}); ns per pair has the NOOP loop "
      "subtracted and includes the page faults of memory the malloc handed back and touches "
      "again, a larger share in shorter repetitions (docs/budget.md, agreement); memory figures "
      "are medians over the processes",
      plan.sizes.processes, heap_sizes_of(plan).iterations, heap_default_iterations);
}

void add_heap_results(const frame_results_input& in, model::document& results) {
  std::vector<cell_retention> measured;
  const auto entry = [&in, &measured](const std::string& name, std::vector<model::cell> cells,
                                      const std::vector<const cell_records*>& records) {
    const checksum_outcome checksums = heap_checksum(records, cells);
    add_measured_cells(in, name, checksums, measured);
    return heap_workload_entry(name, in.plan, std::move(cells), checksums.reference,
                               drawn_sizes(records));
  };
  add_workloads(in, in.plan.workloads.heap, {frame::heap, heap_cell, entry, {}}, results.workloads);
  if (!in.plan.workloads.heap.empty()) results.config.frames.set(heap_config(in.plan));
  // Its top-level keys only when it ran (model/versions.hpp): a try document has none.
  if (has_frame(in.plan, frame::heap)) results.parts.set(heap_document(in, measured));
}

}  // namespace alloclab::lab
