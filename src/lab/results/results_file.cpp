#include "results/results_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "io/usage_error.hpp"
#include "model/document.hpp"
#include "results/schema_check.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The versions `alloclab schema` describes: what `run` writes and what the results model writes
// (it reads the older one), as the schema's own schema_version field allows.
bool readable_version(const json& version) {
  return version.is_number_integer() && version.get<int>() >= model::oldest_readable_version &&
         version.get<int>() <= model::schema_version;
}

std::string readable_versions() {
  return fmt::format("versions {} to {}", model::oldest_readable_version, model::schema_version);
}

// No timed sample lasts a day (a cell's process times out long before): a longer one is a
// corrupted or edited file (medians scaled by 1e300 passed, and compare printed 1e300 ratios).
constexpr double longest_time_ns = 86400e9;

// The lab cells' times over longest_time_ns, as schema-like lines.
std::vector<std::string> impossible_times(const json& results) {
  std::vector<std::string> problems;
  const json& workloads = results.value("workloads", json::array());
  for (std::size_t w = 0; workloads.is_array() && w < workloads.size(); ++w) {
    const json& cells = workloads[w].value("cells", json::array());
    for (std::size_t c = 0; cells.is_array() && c < cells.size(); ++c) {
      const json& timing = cells[c].value("timing", json());
      if (!timing.is_object()) continue;
      for (const auto& [key, value] : timing.items()) {
        if (key.size() < 3 || key.compare(key.size() - 3, 3, "_ns") != 0) continue;
        const bool too_long =
            value.is_array()
                ? std::any_of(value.begin(), value.end(),
                              [](const json& v) {
                                return v.is_number() && v.get<double>() > longest_time_ns;
                              })
                : value.is_number() && value.get<double>() > longest_time_ns;
        if (too_long)
          problems.push_back(fmt::format(
              "/workloads/{}/cells/{}/timing/{}: a time over a day ({:g} ns); no run measures it",
              w, c, key, longest_time_ns));
      }
    }
  }
  return problems;
}

}  // namespace

json read_results_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw usage_error(fmt::format("'{}' is a directory, not a results file", path));
  std::ifstream in(path);
  if (!in)
    throw usage_error(fmt::format("cannot read results file '{}': {}", path, std::strerror(errno)));
  json document;
  try {
    document = json::parse(in);
  } catch (const json::exception& e) {
    std::string what = e.what();
    if (const auto bracket = what.find("] "); bracket != std::string::npos)
      what = what.substr(bracket + 2);
    throw usage_error(fmt::format("'{}' is not valid JSON: {}", path, what));
  }
  if (!document.is_object() || document.value("schema", json()) != "alloclab-results")
    throw usage_error(
        fmt::format("'{}' is not an alloclab results file (no \"schema\": "
                    "\"alloclab-results\" at the top level)",
                    path));
  return document;
}

std::vector<std::string> results_problems(const json& results) {
  const json version = results.value("schema_version", json());
  if (!readable_version(version))
    return {fmt::format("schema_version is {}, this alloclab reads {} (re-run to regenerate)",
                        version.dump(), readable_versions())};
  std::vector<std::string> problems = schema_violations(results, results_schema());
  for (std::string& p : impossible_times(results)) problems.push_back(std::move(p));
  return problems;
}

json read_checked_results(const std::string& path) {
  json results = read_results_file(path);
  const json version = results.value("schema_version", json());
  if (!readable_version(version))
    throw usage_error(fmt::format("'{}' has schema_version {}, this alloclab reads {}", path,
                                  version.dump(), readable_versions()));
  if (auto problems = results_problems(results); !problems.empty())
    throw usage_error(
        fmt::format("'{}' does not match the results schema: {}", path, problems.front()));
  return results;
}

namespace {

// A checked results file read once into the results model, and the version it was written in.
model::document results_model_of(const std::string& path, int& written_version) {
  const json file = read_checked_results(path);
  written_version = file.at("schema_version").get<int>();
  try {
    return model::from_json(file);
  } catch (const model::model_error& e) {
    throw usage_error(
        fmt::format("'{}' is not a results file this alloclab reads: {}", path, e.what()));
  }
}

}  // namespace

model::document read_results_model(const std::string& path) {
  int written_version = 0;
  return results_model_of(path, written_version);
}

model::document read_results_model_as_written(const std::string& path) {
  int written_version = 0;
  model::document d = results_model_of(path, written_version);
  d.schema_version = written_version;
  return d;
}

}  // namespace alloclab::lab
