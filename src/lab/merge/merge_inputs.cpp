#include "merge/merge_inputs.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "io/usage_error.hpp"
#include "merge/frame_figures_reader.hpp"
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

}  // namespace

merge_input read_merge_input(const std::string& argument) {
  merge_input in;
  in.path = results_path_of(argument);
  in.results = read_results_model_as_written(in.path);
  if (!in.results.shard) return in;
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
machine_type machine_type_of(const model::document& results) {
  const model::environment& env = results.environment;
  const auto& twin = results.config.placement_twin;
  return {env.cpu_model, env.glibc, env.transparent_hugepages,
          twin ? *twin : std::optional<std::string>()};
}

bool machine_type::operator==(const machine_type& other) const {
  return cpu_model == other.cpu_model && glibc == other.glibc &&
         transparent_hugepages == other.transparent_hugepages &&
         placement_twin == other.placement_twin;
}

build_identity build_identity_of(const model::environment& env) {
  return {env.build_type, env.compiler, env.cxx_flags, env.git_revision};
}

std::vector<std::string> differences(const build_identity& a, const build_identity& b) {
  std::vector<std::string> out;
  const auto differ = [&out](const char* fact, const std::optional<std::string>& x,
                             const std::optional<std::string>& y) {
    const auto shown = [](const std::optional<std::string>& v) {
      return v ? json(*v).dump() : std::string("null");
    };
    if (x != y) out.push_back(fmt::format("{}: {} vs {}", fact, shown(x), shown(y)));
  };
  differ("build_type", a.build_type, b.build_type);
  differ("compiler", a.compiler, b.compiler);
  differ("cxx_flags", a.cxx_flags, b.cxx_flags);
  differ("git_revision", a.git_revision, b.git_revision);
  return out;
}

json configuration(const model::document& results) {
  json config = model::write_json(results.config);
  config.erase("placement_twin");
  return config;
}

std::vector<named_cell> cells_of(const model::document& results) {
  std::vector<named_cell> cells;
  for (const model::workload& w : results.workloads)
    for (const model::cell& c : w.cells) cells.push_back({"", w.name, c.head});
  for (const auto& row : frame_figures_readers())
    if (row.part.own_cells != nullptr)
      for (auto& [workload, head] : row.part.own_cells(results))
        cells.push_back({row.name, std::move(workload), std::move(head)});
  return cells;
}

std::map<std::string, double> workload_seconds(const model::document& results) {
  std::map<std::string, double> seconds;
  for (const named_cell& c : cells_of(results))
    seconds[c.workload] +=
        c.head.worker ? c.head.worker->wall_seconds * static_cast<double>(c.head.processes) : 0.0;
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
