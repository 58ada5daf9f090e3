// What every frame's results cell is made of. The results builder groups a run's records by cell
// and hands each frame (frames/<frame>/results_cell.cpp, through the frame table) a
// frame_results_input; the frame adds its typed workloads and parts to the results model
// (model::document) from it, using these parts. Only the model's codecs write them as JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/measurement.hpp"
#include "model/cell.hpp"
#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "results/ratio_intervals.hpp"
#include "schedule/scheduler.hpp"

namespace alloclab::lab {

// The records of one cell, in part order, and the first one that has no number (if any).
struct cell_records {
  std::vector<const measurement_record*> parts;
  const measurement_record* broken() const {
    for (const auto* r : parts)
      if (r->status != "ok") return r;
    return nullptr;
  }
};

// The figures one frame put in each of a cell's records (e.g. figures_of<heap_figures>(rs)), in
// part order; call it on a cell whose records all measured.
template <class Figures>
std::vector<const Figures*> figures_of(const cell_records& rs) {
  std::vector<const Figures*> out;
  for (const auto* r : rs.parts) out.push_back(r->figures.template get<Figures>());
  return out;
}

struct frame_results_input {
  const run_plan& plan;
  const run_records& run;
  const std::map<std::size_t, cell_records>& by_cell;  // plan cell index -> its records
  bool power;  // whether the U test over this frame's repetitions can reach alpha
};

using cell_builder = model::cell (*)(const cell_spec&, const cell_records&);

// Calls `visit` with each cell of workload `name` in frame `f` that has records, in plan order.
void for_each_cell(const frame_results_input& in, const std::string& name, frame f,
                   const std::function<void(const cell_spec&, const cell_records&)>& visit);

// The results cells of workload `name` in frame `f`, in plan order; `records`, when given,
// receives each cell's records in the same order.
std::vector<model::cell> cells_of(const frame_results_input& in, const std::string& name, frame f,
                                  cell_builder build,
                                  std::vector<const cell_records*>* records = nullptr);

// How a frame turns its cells into workloads of the results.
struct workload_parts {
  frame f;
  cell_builder cell;
  // The workload entry around `cells` (with its baseline); `records`: each cell's, same order.
  std::function<model::workload(const std::string& name, std::vector<model::cell> cells,
                                const std::vector<const cell_records*>& records)>
      entry;
  // Compares the entry's cells and judges it. Empty: add_comparisons to its baseline alone.
  std::function<void(model::workload& workload)> finish;
};

// Appends to `out` one workload per name: its cells in plan order, wrapped by parts.entry, then
// finished.
void add_workloads(const frame_results_input& in, const std::vector<std::string>& names,
                   const workload_parts& parts, std::vector<model::workload>& out);

// (Re)computes every cell's `vs_std` against the workload's baseline cell ({strategy, malloc}),
// with bootstrap intervals over repetitions; cells without timing get none.
void add_comparisons(model::workload& workload, bool test_has_power);

// The text, or null when it is empty.
std::optional<std::string> text_or_null(const std::string& text);
// A cell with no figures: its identity, status and reason.
model::cell unmeasured_cell(const std::string& strategy, const std::string& malloc,
                            const std::string& status, const std::string& reason);
// What every frame's cell starts from: its identity, its processes, the first process's proof
// and exit facts, or those of the first process that has no number (whose status it takes).
model::cell cell_head(const cell_spec& spec, const cell_records& rs);
// The timing block of a cell's merged samples (`batch`: iterations per sample).
model::timing timing_of(const cell_measurement& c, std::size_t batch);
// A worker's RSS series (process::to_json of it) as the cell's: the worker's has no `process`, it
// is the cell's first.
model::rss_series first_process_series(const nlohmann::json& worker_series,
                                       const std::string& where);
double median_of(std::vector<double> values);
void append(std::vector<double>& to, const std::vector<double>& from);
// part / whole, or none when whole is not positive.
std::optional<double> fraction_of(double part, double whole);
std::string checksum_text(std::uint64_t sum);
// Seed 003's figure for a workload: requests per log2 size band, or null.
std::optional<model::size_histogram> size_histogram_of(const std::vector<std::uint64_t>& bands,
                                                       const char* source);
std::optional<model::interval> interval_of(const interval& i);
std::optional<model::estimate> estimate_of(const std::optional<ratio_estimate>& r);
// The cell of `workload` with this strategy and malloc label, or nullptr.
const model::cell* find_cell(const model::workload& workload, const std::string& strategy,
                             const std::string& malloc);

}  // namespace alloclab::lab
