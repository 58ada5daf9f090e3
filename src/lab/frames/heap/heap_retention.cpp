#include "frames/heap/heap_retention.hpp"

#include <algorithm>
#include <utility>

#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using settle_time = std::optional<double> retention_figures::*;
using settle_spread = std::optional<model::fraction_spread> retention_row::*;

constexpr std::pair<settle_time, settle_spread> settle_times[] = {
    {&retention_figures::after_free_0ms, &retention_row::after_free_0ms},
    {&retention_figures::after_free_100ms, &retention_row::after_free_100ms},
    {&retention_figures::after_free_1s, &retention_row::after_free_1s},
    {&retention_figures::after_purge, &retention_row::after_purge}};

std::optional<double> median_of_values(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, 0.5);
}

std::optional<model::fraction_spread> median_and_range(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return model::fraction_spread{percentile_sorted(values, 0.5), values.front(), values.back()};
}

// The cells of one malloc, in cell order.
std::vector<const cell_retention*> cells_of_malloc(const std::vector<cell_retention>& cells,
                                                   const std::string& malloc) {
  std::vector<const cell_retention*> out;
  for (const cell_retention& c : cells)
    if (c.malloc == malloc) out.push_back(&c);
  return out;
}

retention_row row_of(const std::string& malloc, const std::vector<const cell_retention*>& cells) {
  retention_row row;
  row.malloc = malloc;
  row.purge_call = cells.back()->purge_call;
  for (const auto& [figure, spread] : settle_times) {
    std::vector<double> values;
    for (const cell_retention* c : cells)
      if (const std::optional<double>& v = c->retention.*figure) values.push_back(*v);
    row.*spread = median_and_range(values);
    if (figure == &retention_figures::after_free_0ms) row.workloads = values.size();
  }
  return row;
}

// The variant of this timeline's spec, added when it is new.
retention_variant& variant_of(std::vector<retention_variant>& variants,
                              const heap::retention_spec& spec) {
  const std::string load = spec.light_load ? "light" : "idle";
  for (retention_variant& v : variants)
    if (v.malloc == spec.malloc_name && v.background_thread == spec.background_thread &&
        v.load == load)
      return v;
  retention_variant v;
  v.malloc = spec.malloc_name;
  v.background_thread = spec.background_thread;
  v.load = load;
  variants.push_back(std::move(v));
  return variants.back();
}

void add_medians(retention_variant& v) {
  std::vector<double> kept, unreclaimable;
  for (const auto& [name, w] : v.workloads) {
    if (w.kept) kept.push_back(*w.kept);
    if (w.kept_unreclaimable) unreclaimable.push_back(*w.kept_unreclaimable);
  }
  v.median_kept = median_of_values(std::move(kept));
  v.median_kept_unreclaimable = median_of_values(std::move(unreclaimable));
}

constexpr const char* kept_figure =
    "share of the heap growth (peak RSS - baseline) still resident at the horizon; "
    "kept_unreclaimable leaves out LazyFree (pages freed with MADV_FREE, which the kernel "
    "takes back when it needs them)";

}  // namespace

std::vector<retention_row> heap_retention_summary(const std::vector<cell_retention>& cells) {
  std::vector<retention_row> rows;
  for (const cell_retention& c : cells) {
    const bool named = std::any_of(rows.begin(), rows.end(),
                                   [&c](const retention_row& r) { return r.malloc == c.malloc; });
    if (!named) rows.push_back(row_of(c.malloc, cells_of_malloc(cells, c.malloc)));
  }
  return rows;
}

std::optional<retention_timelines_figures> retention_timelines_summary(
    std::vector<retention_timeline_run> timelines, double horizon_s) {
  if (timelines.empty()) return std::nullopt;
  retention_timelines_figures out;
  out.horizon_s = horizon_s;
  out.figure = kept_figure;
  for (const retention_timeline_run& t : timelines) {
    retention_variant& row = variant_of(out.variants, t.spec.spec);
    const std::string workload = "fifo_" + std::string(heap::to_string(t.spec.spec.dist));
    if (t.status != "ok" || !t.retention) {
      row.failures.push_back(workload + ": " + model::write_json(t.reason).dump());
      continue;
    }
    row.workloads[workload] = {t.retention->kept, t.retention->kept_unreclaimable};
  }
  for (retention_variant& v : out.variants) add_medians(v);
  out.timelines = std::move(timelines);
  return out;
}

}  // namespace alloclab::lab
