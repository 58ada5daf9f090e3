// What `advise` reads from a program-frame results document (`alloclab try`, real runs of the
// program under each malloc and knob variant; its typed part frames/program/program_model.hpp):
// the program's command and, per combination, the CPU time (user + sys) of each of its
// successful runs, and the CPU ratios `try` filed.
//
// Example:
//   const model::document real = model::from_json(try_results_json);
//   const alloclab::lab::program_runs runs = read_program_runs(program_part(real));
//   // runs.baseline.samples: CPU ms of each successful run of the baseline combination
#pragma once

#include <string>
#include <vector>

#include "advise/malloc_advice.hpp"
#include "frames/program/program_model.hpp"
#include "model/document.hpp"

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

/// The program frame's part of `results`; throws usage_error when it has none.
const program_results_section& program_part(const model::document& results);

/// Throws usage_error when `program` has no measured baseline.
/// `baseline` names the combination to divide by (a replay's baseline, so that both sides'
/// ratios share it); empty: the program frame's own baseline.
program_runs read_program_runs(const program_results_section& program,
                               const std::string& baseline = {});

/// Whether `trace_command` (a trace's recorded command) ran the same program: the same file
/// name of the executable.
bool same_program(const std::vector<std::string>& trace_command,
                  const std::vector<std::string>& run_command);

}  // namespace alloclab::lab
