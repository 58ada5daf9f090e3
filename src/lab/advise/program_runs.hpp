// What `advise` reads from a program-frame results.json (`alloclab try`, real runs of the
// program under each malloc and knob variant): the program's command and, per combination, the
// CPU time (user + sys) of each of its successful runs. This file is the one place that knows
// that file's shape; it reads the program frame's document as written on its branch today:
//
//   {"program": {"command": ["/usr/bin/python3", "..."], "baseline": "glibc",
//                "combinations": [{"name": "glibc", "malloc": "glibc", ...}, ...],
//                "runs": [{"combination": "glibc", "ok": true, "cpu_seconds": 1.32, ...}, ...]}}
//
// Example:
//   const nlohmann::json j = nlohmann::json::parse(R"({"program": {"command": ["python3"],
//     "baseline": "glibc", "combinations": [{"name": "glibc", "malloc": "glibc"}],
//     "runs": [{"combination": "glibc", "ok": true, "cpu_seconds": 0.01}]}})");
//   const alloclab::lab::program_runs runs = alloclab::lab::read_program_runs(j);
//   // runs.baseline.samples == {10} (milliseconds)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/malloc_advice.hpp"

namespace alloclab::lab {

struct program_runs {
  std::vector<std::string> command;  ///< the program and its arguments
  malloc_costs baseline;             ///< CPU ms per real run of the baseline combination
  std::vector<malloc_costs> others;  ///< the same for every other combination, by its name
  /// The CPU ratios `try` filed (cpu_vs_baseline, inverted: baseline ÷ combination), in the order
  /// of `others`, when its baseline is the one asked for; empty for a file without them. An
  /// adaptive `try` stopped on its looks: only its own intervals hold, so advice uses these.
  std::vector<filed_ratio> filed;
  std::string filed_interval;  ///< how `try` made those intervals (program.stopping.interval)
};

/// Throws usage_error when `results` holds no program workload or no measured baseline.
/// `baseline` names the combination to divide by (a replay's baseline, so that both sides'
/// ratios share it); empty: the program frame's own baseline.
program_runs read_program_runs(const nlohmann::json& results, const std::string& baseline = {});

/// Whether `trace_command` (a trace's recorded command) ran the same program: the same file
/// name of the executable.
bool same_program(const std::vector<std::string>& trace_command,
                  const std::vector<std::string>& run_command);

}  // namespace alloclab::lab
