#include "export/gbench_export.hpp"

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "stats/stats.hpp"

namespace alloclab::lab {
using json = nlohmann::json;

namespace {

constexpr const char* time_note =
    "alloclab times wall-clock time on the measuring thread; cpu_time repeats real_time";

json context_of(const json& results) {
  const json& env = results.at("environment");
  const bool optimised = env.value("optimized", false);
  return {{"date", results.at("created_utc")},
          {"host_name", env.value("machine", "unknown")},
          {"executable", results.at("command")},
          {"num_cpus", env.value("logical_cpus", 0)},
          {"mhz_per_cpu", 0},
          {"cpu_scaling_enabled",
           env.value("governor", json()).is_string() && env.at("governor") != "performance"},
          {"caches", json::array()},
          {"load_avg", json::array()},
          {"library_build_type", optimised ? "release" : "debug"},
          {"alloclab_schema_version", results.at("schema_version")},
          {"alloclab_git_revision", env.value("git_revision", json())},
          {"alloclab_cpu_model", env.value("cpu_model", json())},
          {"alloclab_glibc", env.value("glibc", json())},
          {"alloclab_kernel", env.value("kernel", json())},
          {"alloclab_time_note", time_note}};
}

std::string family_name(const json& workload, const json& cell) {
  std::string name =
      fmt::format("{}/{}/malloc:{}", workload.at("name").get<std::string>(),
                  cell.at("strategy").get<std::string>(), cell.at("malloc").get<std::string>());
  if (cell.value("placement_twin", false)) name += "/placement_twin";
  return name;
}

// The keys every entry of one family shares, in Google Benchmark's order.
json entry_head(const std::string& name, const std::string& run_name, std::size_t family,
                const char* run_type, std::size_t repetitions) {
  return {{"name", name},         {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", run_name}, {"run_type", run_type},   {"repetitions", repetitions}};
}

void add_memory(json& entry, const json& cell) {
  const json heap = cell.value("heap", json());
  if (!heap.is_object()) return;
  if (heap.contains("allocations_per_iteration"))
    entry["allocs_per_iter"] = heap.at("allocations_per_iteration");
  if (heap.contains("bytes_per_iteration"))
    entry["alloclab_bytes_per_iter"] = heap.at("bytes_per_iteration");
}

// `cell` given: the entry also carries the cell's per-iteration memory figures (not on a spread).
json timed_entry(json entry, double ns, std::uint64_t iterations, const json* cell) {
  entry["threads"] = 1;
  entry["iterations"] = iterations;
  entry["real_time"] = ns;
  entry["cpu_time"] = ns;
  entry["time_unit"] = "ns";
  if (cell != nullptr) add_memory(entry, *cell);
  return entry;
}

void add_family(json& out, const json& workload, const json& cell, std::size_t family) {
  const std::string name = family_name(workload, cell);
  const json& timing = cell.at("timing");
  const std::vector<double> means = timing.at("repetition_means_ns");
  const std::size_t reps = means.size();
  const std::uint64_t per_rep = timing.at("timed_iterations").get<std::uint64_t>() / reps;
  for (std::size_t i = 0; i < reps; ++i) {
    json head = entry_head(name, name, family, "iteration", reps);
    head["repetition_index"] = i;
    out.push_back(timed_entry(std::move(head), means[i], per_rep, &cell));
  }
  const summary s = summarize(means);
  const struct {
    const char* name;
    double value;
    const char* unit;
    bool with_memory;
  } aggregates[] = {{"mean", s.mean, "time", true},
                    {"median", s.p50, "time", true},
                    {"stddev", s.stddev, "time", false},
                    {"cv", s.cv, "percentage", false}};
  for (const auto& a : aggregates) {
    json head = entry_head(name + "_" + a.name, name, family, "aggregate", reps);
    head["threads"] = 1;
    head["aggregate_name"] = a.name;
    head["aggregate_unit"] = a.unit;
    out.push_back(timed_entry(std::move(head), a.value, reps, a.with_memory ? &cell : nullptr));
  }
}

void add_error(json& out, const json& workload, const json& cell, std::size_t family) {
  const std::string name = family_name(workload, cell);
  json entry = entry_head(name, name, family, "iteration", 1);
  entry["repetition_index"] = 0;
  entry["threads"] = 1;
  entry["error_occurred"] = true;
  const json reason = cell.value("reason", json());
  entry["error_message"] = fmt::format("{}{}", cell.at("status").get<std::string>(),
                                       reason.is_string() ? ": " + reason.get<std::string>() : "");
  out.push_back(std::move(entry));
}

bool has_repetitions(const json& cell) {
  const json timing = cell.value("timing", json());
  return timing.is_object() && timing.contains("repetition_means_ns") &&
         !timing.at("repetition_means_ns").empty() && timing.contains("timed_iterations");
}

}  // namespace

json to_gbench_json(const json& results) {
  json benchmarks = json::array();
  std::set<std::string> skipped;
  std::size_t family = 0;
  for (const json& workload : results.at("workloads")) {
    for (const json& cell : workload.at("cells")) {
      if (has_repetitions(cell))
        add_family(benchmarks, workload, cell, family++);
      else if (cell.at("status") != "ok")
        add_error(benchmarks, workload, cell, family++);
      else
        skipped.insert(workload.value("frame", "unknown"));
    }
  }
  if (results.contains("serve") && !results.at("serve").is_null()) skipped.insert("serve");
  json context = context_of(results);
  context["alloclab_frames_not_exported"] = skipped;
  return {{"context", std::move(context)}, {"benchmarks", std::move(benchmarks)}};
}

}  // namespace alloclab::lab
