#include "advise/program_runs.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "plan/request.hpp"

namespace alloclab::lab {

using json = nlohmann::json;

namespace {

const json& program_of(const json& results) {
  if (results.is_object() && results.contains("program") && results.at("program").is_object())
    return results.at("program");
  throw usage_error(
      "--real: those results hold no real runs of a program (run `alloclab try -- PROGRAM`)");
}

// CPU milliseconds of the successful runs of `combination`.
std::vector<double> cpu_ms_of(const json& runs, const std::string& combination) {
  std::vector<double> ms;
  for (const auto& r : runs)
    if (r.value("combination", "") == combination && r.value("ok", false))
      ms.push_back(1e3 * r.at("cpu_seconds").get<double>());
  return ms;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

program_runs read_program_runs(const json& results, const std::string& baseline) {
  const json& program = program_of(results);
  program_runs runs;
  runs.command = program.value("command", std::vector<std::string>{});
  const std::string base = !baseline.empty() ? baseline
                           : program.value("baseline", json()).is_string()
                               ? program.at("baseline").get<std::string>()
                               : std::string();
  bool have_base = false;
  for (const auto& c : program.at("combinations")) {
    const std::string name = c.at("name");
    malloc_costs costs{name, cpu_ms_of(program.at("runs"), name)};
    if (costs.samples.empty()) continue;
    if (name == base) {
      runs.baseline = std::move(costs);
      have_base = true;
    } else {
      runs.others.push_back(std::move(costs));
    }
  }
  if (!have_base && !baseline.empty())
    throw usage_error(fmt::format(
        "--real: the real runs have no measured '{}' (the replay's baseline): their ratios cannot "
        "be set beside the replay's; run `alloclab try` with {} in --malloc",
        base, base));
  if (!have_base)
    throw usage_error(fmt::format(
        "--real: the real runs have no measured baseline ('{}'): nothing to compare with", base));
  return runs;
}

bool same_program(const std::vector<std::string>& trace_command,
                  const std::vector<std::string>& run_command) {
  return !trace_command.empty() && !run_command.empty() &&
         file_name(trace_command.front()) == file_name(run_command.front());
}

}  // namespace alloclab::lab
