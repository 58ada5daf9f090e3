#include "export/gbench_export.hpp"

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/document.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

constexpr const char* time_note =
    "alloclab times wall-clock time on the measuring thread; cpu_time repeats real_time";

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// host_name: results.json does not record the host's name (`machine` is `uname -m`, which the
// export wrote here before). cpu_scaling_enabled is left out when the run could not read the
// governor (a VM): false would say scaling was off.
json context_of(const model::document& results, const json& schema_version) {
  const model::environment& env = results.environment;
  json context = {{"date", results.created_utc},
                  {"host_name", "unknown"},
                  {"executable", results.command},
                  {"num_cpus", env.logical_cpus},
                  {"mhz_per_cpu", 0},
                  {"caches", json::array()},
                  {"load_avg", json::array()},
                  {"library_build_type", env.optimized ? "release" : "debug"},
                  {"alloclab_schema_version", schema_version},
                  {"alloclab_git_revision", or_null(env.git_revision)},
                  {"alloclab_cpu_model", or_null(env.cpu_model)},
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

// The batch frame's counted pass, read from the keys its part writes: a stage names no frame's
// types (a typed accessor belongs on model::frame_part).
void add_memory(json& entry, const model::cell& cell) {
  json part = json::object();
  cell.figures.write(part);
  const json heap = part.value("heap", json());
  if (!heap.is_object()) return;
  if (heap.contains("allocations_per_iteration"))
    entry["allocs_per_iter"] = heap.at("allocations_per_iteration");
  if (heap.contains("bytes_per_iteration"))
    entry["alloclab_bytes_per_iter"] = heap.at("bytes_per_iteration");
}

// `cell` given: the entry also carries the cell's per-iteration memory figures (not on a spread).
json timed_entry(json entry, double ns, std::uint64_t iterations, const model::cell* cell) {
  entry["threads"] = 1;
  entry["iterations"] = iterations;
  entry["real_time"] = ns;
  entry["cpu_time"] = ns;
  entry["time_unit"] = "ns";
  if (cell != nullptr) add_memory(entry, *cell);
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
  for (std::size_t i = 0; i < reps; ++i) {
    json head = entry_head(name, name, family, "iteration", reps);
    head["repetition_index"] = i;
    out.push_back(timed_entry(std::move(head), means[i], per_rep, &cell));
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
    out.push_back(timed_entry(std::move(head), a.value, reps, a.with_memory ? &cell : nullptr));
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

bool has_repetitions(const model::cell& cell) {
  return cell.timing && !cell.timing->repetition_means_ns.empty();
}

}  // namespace

json to_gbench_json(const json& file) {
  const model::document results = model::from_json(file);
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
  // Frames whose figures live in a part of their own (serve, program) have no repetitions to
  // export.
  json top_level = json::object();
  results.parts.write(top_level);
  for (const auto& [frame_name, what] : results.frames)
    if (top_level.contains(frame_name)) skipped.insert(frame_name);
  json context = context_of(results, file.at("schema_version"));
  context["alloclab_frames_not_exported"] = skipped;
  return {{"context", std::move(context)}, {"benchmarks", std::move(benchmarks)}};
}

}  // namespace alloclab::lab
