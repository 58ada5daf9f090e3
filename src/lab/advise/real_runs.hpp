// The real runs `alloclab advise` makes by default: `alloclab try` on the command a trace
// recorded, in its recorded working directory, with its recorded stdin and environment (trace
// format version 4 on), each overridable; for an older trace, or one recorded with stdin from
// a pipe, the notes say what the runs could not reproduce.
//
// Example:
//   const trace::trace_file trace("app.trace");
//   const real_runs_plan plan = plan_real_runs(trace.header(), {});
//   // plan.request.command == the recorded command; plan.notes: what was and was not recorded
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frames/program/try_command.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::lab {

/// What the user gave beside the trace (empty: the recorded value, or try's default).
struct real_run_options {
  std::string working_directory, stdin_path;
  std::optional<std::string> budget;
  std::vector<std::string> mallocs;  ///< the replay's --malloc; "all" or paths: try's default
  std::string variants;
  std::string out_root;  ///< the runs go to OUT_ROOT/try-<UTC time>
  bool wait_for_lock = false;
  std::string command_line;
};

struct real_runs_plan {
  program::try_request request;
  std::vector<std::string> notes;  ///< one line each, for advise's method section
};

/// Throws usage_error (one line) when the trace recorded no command, or the recorded working
/// directory or stdin is not there and no override was given.
real_runs_plan plan_real_runs(const trace::trace_header& header, const real_run_options& options);

}  // namespace alloclab::lab
