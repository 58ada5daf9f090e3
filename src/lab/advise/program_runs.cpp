#include "advise/program_runs.hpp"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "plan/request.hpp"

namespace alloclab::lab {

namespace {

// CPU milliseconds of the successful runs of `combination`.
std::vector<double> cpu_ms_of(const std::vector<program_run_row>& runs,
                              const std::string& combination) {
  std::vector<double> ms;
  for (const auto& r : runs)
    if (r.combination == combination && r.ok) ms.push_back(1e3 * r.figures.cpu_seconds);
  return ms;
}

// A combination's filed CPU ratio, inverted to baseline ÷ combination; none when absent.
std::optional<filed_ratio> filed_of(const combination_result& combination) {
  const std::optional<program_ratio>& vs = combination.cpu_vs_baseline;
  if (!vs || !(vs->ratio > 0)) return std::nullopt;
  filed_ratio f;
  f.malloc = combination.name;
  f.ratio = 1 / vs->ratio;
  if (vs->interval) f.range = {1 / vs->interval->high, 1 / vs->interval->low};
  f.p_value = vs->p_value;
  f.enough_runs = vs->enough_runs;
  return f;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

}  // namespace

const program_results_section& program_part(const model::document& results) {
  if (const auto* part = results.parts.get<program_document_figures>()) return part->program;
  throw usage_error(
      "--real: those results hold no real runs of a program (run `alloclab try -- PROGRAM`)");
}

program_runs read_program_runs(const program_results_section& program,
                               const std::string& baseline) {
  program_runs runs;
  runs.command = program.command;
  const std::string base = !baseline.empty() ? baseline : program.baseline.value_or("");
  bool have_base = false;
  const bool adaptive = program.stopping && program.stopping->mode == "adaptive";
  for (const auto& c : program.combinations) {
    malloc_costs costs{c.name, cpu_ms_of(program.runs, c.name)};
    if (costs.samples.empty()) continue;
    if (c.name == base) {
      runs.baseline = std::move(costs);
      have_base = true;
    } else {
      runs.others.push_back(std::move(costs));
      // Adaptive rounds: a combination without a filed ratio has none (its runs must not be
      // bootstrapped again after the looks); it is judged "too few".
      if (auto f = filed_of(c))
        runs.filed.push_back(std::move(*f));
      else if (adaptive)
        runs.filed.push_back({c.name, 0, {}, 1, false});
    }
  }
  // Filed ratios divide by the file's own baseline: usable only when it is the one asked for,
  // and (fixed rounds) only when every other combination has one.
  const bool same_base = program.baseline && *program.baseline == base;
  if (!same_base || runs.filed.size() != runs.others.size()) runs.filed.clear();
  if (program.stopping && !runs.filed.empty()) runs.filed_interval = program.stopping->interval;
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
