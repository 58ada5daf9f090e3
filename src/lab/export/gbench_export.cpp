#include "export/gbench_export.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "export/frame_export_hook.hpp"
#include "model/document.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

constexpr const char* time_note =
    "alloclab times wall-clock time on the measuring thread; cpu_time repeats real_time";

// host_name: results.json does not record the host's name (`machine` is `uname -m`, which the
// export wrote here before). cpu_scaling_enabled is left out when the run could not read the
// governor (a VM): false would say scaling was off.
json context_of(const model::document& results) {
  const model::environment& env = results.environment;
  json context = {{"date", results.created_utc},
                  {"host_name", "unknown"},
                  {"executable", results.command},
                  {"num_cpus", env.logical_cpus},
                  {"mhz_per_cpu", 0},
                  {"caches", json::array()},
                  {"load_avg", json::array()},
                  {"library_build_type", env.optimized ? "release" : "debug"},
                  {"alloclab_schema_version", results.schema_version},
                  {"alloclab_git_revision", model::write_json(env.git_revision)},
                  {"alloclab_cpu_model", model::write_json(env.cpu_model)},
                  {"alloclab_glibc", env.glibc},
                  {"alloclab_kernel", env.kernel},
                  {"alloclab_time_note", time_note}};
  if (env.governor) context["cpu_scaling_enabled"] = *env.governor != "performance";
  return context;
}

std::string family_name(const model::workload& workload, const model::cell& cell) {
  std::string name =
      fmt::format("{}/{}/malloc:{}", workload.name, cell.head.strategy, cell.head.malloc);
  if (cell.head.placement_twin) name += "/placement_twin";
  return name;
}

// The keys every entry of one family shares, in Google Benchmark's order.
json entry_head(const std::string& name, const std::string& run_name, std::size_t family,
                const char* run_type, std::size_t repetitions) {
  return {{"name", name},         {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", run_name}, {"run_type", run_type},   {"repetitions", repetitions}};
}

// The cell's heap traffic per iteration, as its frame counted it (export/frame_export_hook.hpp).
std::optional<heap_per_iteration> heap_of(const model::workload& workload,
                                          const model::cell& cell) {
  for (const auto& row : frame_export_hooks())
    if (workload.frame == row.name && row.part.heap_of != nullptr) return row.part.heap_of(cell);
  return std::nullopt;
}

// `heap` given: the entry also carries the cell's per-iteration memory figures (not on a spread).
json timed_entry(json entry, double ns, std::uint64_t iterations,
                 const std::optional<heap_per_iteration>& heap) {
  entry["threads"] = 1;
  entry["iterations"] = iterations;
  entry["real_time"] = ns;
  entry["cpu_time"] = ns;
  entry["time_unit"] = "ns";
  if (heap) {
    entry["allocs_per_iter"] = heap->allocations;
    entry["alloclab_bytes_per_iter"] = heap->bytes;
  }
  return entry;
}

// One entry per repetition and the aggregates the results summarised them into.
void add_family(json& out, const model::workload& workload, const model::cell& cell,
                std::size_t family) {
  const std::string name = family_name(workload, cell);
  const model::timing& timing = *cell.timing;
  const std::vector<double>& means = timing.repetition_means_ns;
  const std::size_t reps = means.size();
  const std::uint64_t per_rep = timing.timed_iterations / reps;
  const std::optional<heap_per_iteration> heap = heap_of(workload, cell);
  for (std::size_t i = 0; i < reps; ++i) {
    json head = entry_head(name, name, family, "iteration", reps);
    head["repetition_index"] = i;
    out.push_back(timed_entry(std::move(head), means[i], per_rep, heap));
  }
  const model::repetition_summary& s = timing.repetition_means_summary;
  const struct {
    const char* name;
    double value;
    const char* unit;
    bool with_memory;
  } aggregates[] = {{"mean", s.mean_ns, "time", true},
                    {"median", s.median_ns, "time", true},
                    {"stddev", s.stddev_ns, "time", false},
                    {"cv", s.cv, "percentage", false}};
  for (const auto& a : aggregates) {
    json head = entry_head(name + "_" + a.name, name, family, "aggregate", reps);
    head["threads"] = 1;
    head["aggregate_name"] = a.name;
    head["aggregate_unit"] = a.unit;
    out.push_back(timed_entry(std::move(head), a.value, reps, a.with_memory ? heap : std::nullopt));
  }
}

void add_error(json& out, const model::workload& workload, const model::cell& cell,
               std::size_t family) {
  const std::string name = family_name(workload, cell);
  json entry = entry_head(name, name, family, "iteration", 1);
  entry["repetition_index"] = 0;
  entry["threads"] = 1;
  entry["error_occurred"] = true;
  const std::optional<std::string>& reason = cell.head.reason;
  entry["error_message"] = fmt::format("{}{}", cell.head.status, reason ? ": " + *reason : "");
  // Google Benchmark writes these on an errored run too (zero): readers index them.
  entry["iterations"] = 0;
  entry["real_time"] = 0.0;
  entry["cpu_time"] = 0.0;
  entry["time_unit"] = "ns";
  out.push_back(std::move(entry));
}

// The frames that ran whose figures live in a part of their own (serve, program) rather than in
// the workloads: they have no repetitions to export.
std::vector<std::string> frames_apart(const model::document& results) {
  std::vector<std::string> names;
  for (const model::frame_codecs& row : model::frame_codec_table()) {
    const std::string name = row.name;
    const bool in_workloads =
        std::any_of(results.workloads.begin(), results.workloads.end(),
                    [&](const model::workload& w) { return w.frame == name; });
    if (row.results_parts.document != nullptr && results.frames.count(name) != 0 && !in_workloads)
      names.push_back(name);
  }
  return names;
}

bool has_repetitions(const model::cell& cell) {
  return cell.timing && !cell.timing->repetition_means_ns.empty();
}

}  // namespace

json to_gbench_json(const model::document& results) {
  json benchmarks = json::array();
  std::set<std::string> skipped;
  std::size_t family = 0;
  for (const model::workload& workload : results.workloads) {
    for (const model::cell& cell : workload.cells) {
      if (has_repetitions(cell))
        add_family(benchmarks, workload, cell, family++);
      else if (cell.head.status != "ok")
        add_error(benchmarks, workload, cell, family++);
      else
        skipped.insert(workload.frame);
    }
  }
  for (const std::string& frame_name : frames_apart(results)) skipped.insert(frame_name);
  json context = context_of(results);
  context["alloclab_frames_not_exported"] = skipped;
  return {{"context", std::move(context)}, {"benchmarks", std::move(benchmarks)}};
}

}  // namespace alloclab::lab
