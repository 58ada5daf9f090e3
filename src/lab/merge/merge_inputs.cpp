#include "merge/merge_inputs.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "io/usage_error.hpp"
#include "results/results_file.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The results.json an argument names: the file itself, DIR/results.json, or DIR/latest/results.json.
std::string results_path_of(const std::string& argument) {
  std::error_code ec;
  if (!fs::is_directory(argument, ec)) return argument;
  for (const fs::path& candidate :
       {fs::path(argument) / "results.json", fs::path(argument) / "latest" / "results.json"})
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  throw usage_error(fmt::format("'{}' holds no results.json (nor latest/results.json)", argument));
}

json value_at(const json& j, const json::json_pointer& pointer) {
  return j.contains(pointer) ? j.at(pointer) : json(nullptr);
}

}  // namespace

merge_input read_merge_input(const std::string& argument) {
  merge_input in;
  in.path = results_path_of(argument);
  in.results = read_checked_results(in.path);
  if (!in.results.contains("shard")) return in;
  const fs::path file = fs::path(in.path).parent_path() / shard_file_name;
  std::ifstream stream(file);
  if (!stream)
    throw usage_error(
        fmt::format("'{}' is a shard but '{}' beside it cannot be read", in.path, file.string()));
  json doc;
  try {
    doc = json::parse(stream);
  } catch (const json::exception&) {
    throw usage_error(fmt::format("'{}' is not valid JSON", file.string()));
  }
  in.shard = shard_file_from_json(doc, file.string());
  return in;
}

// What a machine is, from facts a run reads, never from one it measures: the placement probe's
// verdict (a copy cliff) can differ between two runs of one machine under load, and would split
// one machine's shards in two. The fleet report still shows it beside each flip.
json machine_type(const json& results) {
  const json& env = results.at("environment");
  return {{"cpu_model", env.value("cpu_model", json())},
          {"glibc", env.value("glibc", json())},
          {"transparent_hugepages", env.value("transparent_hugepages", json())},
          {"placement_twin", results.at("config").value("placement_twin", json())}};
}

json build_identity(const json& results) {
  const json& env = results.at("environment");
  json id = json::object();
  for (const char* key : {"git_revision", "compiler", "cxx_flags", "build_type"})
    id[key] = env.value(key, json());
  return id;
}

json configuration(const json& results) {
  json config = results.at("config");
  config.erase("placement_twin");
  return config;
}

std::map<std::string, double> workload_seconds(const json& results) {
  std::map<std::string, double> seconds;
  const auto add = [&](const json& workloads) {
    for (const auto& w : workloads)
      for (const auto& c : w.value("cells", json::array()))
        seconds[w.value("name", "")] +=
            value_at(c, json::json_pointer("/worker/wall_seconds")).is_number()
                ? c.at("worker").at("wall_seconds").get<double>() *
                      static_cast<double>(c.value("processes", std::size_t{1}))
                : 0.0;
  };
  add(results.at("workloads"));
  if (value_at(results, json::json_pointer("/serve/workloads")).is_array())
    add(results.at("serve").at("workloads"));
  return seconds;
}

std::vector<std::string> differences(const json& a, const json& b) {
  std::vector<std::string> out;
  for (const auto& [key, value] : a.items()) {
    const json other = b.value(key, json());
    if (value != other) out.push_back(fmt::format("{}: {} vs {}", key, value.dump(), other.dump()));
  }
  for (const auto& [key, value] : b.items())
    if (!a.contains(key)) out.push_back(fmt::format("{}: null vs {}", key, value.dump()));
  return out;
}

}  // namespace alloclab::lab
