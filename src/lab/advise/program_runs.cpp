#include "advise/program_runs.hpp"

#include <filesystem>
#include <optional>

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

// A combination's filed CPU ratio, inverted to baseline ÷ combination; none when absent.
std::optional<filed_ratio> filed_of(const json& combination) {
  const json vs = combination.value("cpu_vs_baseline", json());
  if (!vs.is_object() || !(vs.value("ratio", 0.0) > 0)) return std::nullopt;
  filed_ratio f;
  f.malloc = combination.at("name").get<std::string>();
  f.ratio = 1 / vs.at("ratio").get<double>();
  if (const json range = vs.value("interval", json()); range.is_object())
    f.range = {1 / range.at("high").get<double>(), 1 / range.at("low").get<double>()};
  f.p_value = vs.value("p_value", 1.0);
  f.enough_runs = vs.value("enough_runs", false);
  return f;
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
  const json stopping = program.value("stopping", json());
  const bool adaptive = stopping.is_object() && stopping.value("mode", "") == "adaptive";
  for (const auto& c : program.at("combinations")) {
    const std::string name = c.at("name");
    malloc_costs costs{name, cpu_ms_of(program.at("runs"), name)};
    if (costs.samples.empty()) continue;
    if (name == base) {
      runs.baseline = std::move(costs);
      have_base = true;
    } else {
      runs.others.push_back(std::move(costs));
      // Adaptive rounds: a combination without a filed ratio has none (its runs must not be
      // bootstrapped again after the looks); it is judged "too few".
      if (auto f = filed_of(c))
        runs.filed.push_back(std::move(*f));
      else if (adaptive)
        runs.filed.push_back({name, 0, {}, 1, false});
    }
  }
  // Filed ratios divide by the file's own baseline: usable only when it is the one asked for,
  // and (fixed rounds) only when every other combination has one.
  const bool same_base = program.value("baseline", json()) == json(base);
  if (!same_base || runs.filed.size() != runs.others.size()) runs.filed.clear();
  if (const json s = program.value("stopping", json()); s.is_object() && !runs.filed.empty())
    runs.filed_interval = s.value("interval", "");
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
