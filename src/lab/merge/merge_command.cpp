#include "merge/merge_command.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/output.hpp"
#include "io/usage_error.hpp"
#include "merge/fleet.hpp"
#include "model/document.hpp"
#include "merge/merge_inputs.hpp"
#include "merge/shard_merge.hpp"
#include "io/atomic_write.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "render/run_directory.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Inputs of one machine type, in the order they were given.
struct machine_group {
  machine_type type;
  std::vector<const merge_input*> inputs;
};

void refuse_mixed_builds(const std::vector<merge_input>& inputs) {
  const build_identity first = build_identity_of(inputs.front().results.environment);
  for (const merge_input& in : inputs)
    if (const auto diff = differences(first, build_identity_of(in.results.environment));
        !diff.empty())
      throw usage_error(fmt::format("mixed builds: '{}' and '{}' differ ({})", inputs.front().path,
                                    in.path, diff.front().substr(0, 200)));
}

std::vector<machine_group> group_by_machine(const std::vector<merge_input>& inputs) {
  std::vector<machine_group> groups;
  for (const merge_input& in : inputs) {
    const machine_type type = machine_type_of(in.results);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const machine_group& g) { return g.type == type; });
    if (it == groups.end()) it = groups.insert(groups.end(), machine_group{type, {}});
    it->inputs.push_back(&in);
  }
  return groups;
}

// One machine type's results: its one whole run, or its shards merged.
model::document results_of(const machine_group& g, const std::string& command_line) {
  for (const merge_input* in : g.inputs)
    if (!in->shard && g.inputs.size() > 1)
      throw usage_error(fmt::format(
          "overlapping runs: '{}' is a whole run and '{}' measured the same machine type too",
          in->path, (in == g.inputs.front() ? g.inputs.back() : g.inputs.front())->path));
  if (!g.inputs.front()->shard) return g.inputs.front()->results;
  return merge_shards(g.inputs, command_line, utc_now("%Y-%m-%dT%H:%M:%SZ"));
}

void write_results(const fs::path& directory, const model::document& results) {
  try {
    write_run_directory(directory, results);
  } catch (const run_directory_error& e) {
    throw output_error(fmt::format("cannot write under '{}': {}", directory.string(), e.what()));
  }
}

std::size_t cell_count(const model::document& results) {
  return cells_of(results).size();
}

std::string machine_label(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : "M" + std::to_string(i + 1);
}

}  // namespace

int execute_merge(const std::vector<std::string>& arguments, const std::string& output_directory,
                  const std::string& command_line) {
  const fs::path out = output_directory;
  try {
    ensure_writable_directory(out);
  } catch (const std::system_error& e) {
    throw usage_error(
        fmt::format("-o '{}' is not a writable directory: {}", out.string(), e.code().message()));
  }
  std::vector<merge_input> inputs;
  for (const std::string& a : arguments) inputs.push_back(read_merge_input(a));
  refuse_mixed_builds(inputs);
  const std::vector<machine_group> groups = group_by_machine(inputs);
  if (inputs.size() == 1 && !inputs.front().shard)
    throw usage_error(
        fmt::format("nothing to merge: '{}' is one whole run of one machine type; "
                    "merge takes the shards of a plan, or runs of several machine "
                    "types",
                    inputs.front().path));
  std::vector<fleet_machine> machines;
  for (std::size_t i = 0; i < groups.size(); ++i)
    machines.push_back({machine_label(i), "", results_of(groups[i], command_line)});
  for (const fleet_machine& m : machines)
    if (const auto diff =
            differences(configuration(machines.front().results), configuration(m.results));
        !diff.empty())
      throw usage_error(fmt::format("mixed configurations: machine {} and machine {} differ ({})",
                                    machines.front().label, m.label, diff.front().substr(0, 200)));
  try {
    if (machines.size() == 1) {
      write_results(out, machines.front().results);
      print_or_throw(fmt::format(
          "merged {} shards: {} cells in {} (claims and comparisons judged from the merged "
          "cells)\n",
          inputs.size(), cell_count(machines.front().results), (out / "results.json").string()));
      return 0;
    }
    for (fleet_machine& m : machines) {
      const fs::path directory = out / ("machine-" + m.label);
      write_results(directory, m.results);
      m.path = (directory / "results.json").string();
    }
    const fleet_report fleet = fleet_document(machines);
    const json fleet_file = fleet_json(fleet);
    const std::string md = fleet_markdown(fleet);
    write_file_atomically(out / "fleet.json", fleet_file.dump(2) + "\n");
    write_file_atomically(out / "fleet.md", md);
    write_file_atomically(out / "fleet.html", html_page("alloclab fleet report",
                                                        markdown_to_html(md), fleet_file, false));
    print_or_throw(fmt::format("fleet of {} machine types: {} (and fleet.html, fleet.json)\n",
                               machines.size(), (out / "fleet.md").string()));
    return 0;
  } catch (const std::system_error& e) {
    throw output_error(fmt::format("cannot write under '{}': {}", out.string(), e.what()));
  }
}

}  // namespace alloclab::lab
