#include "advise/real_runs.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "plan/budget.hpp"
#include "plan/request.hpp"
#include "mallocs/malloc_table.hpp"
#include "io/atomic_write.hpp"
#include "render/shell_words.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;

namespace {

// The mallocs `try` can run: registry names (the replay's "all" or a path: try's own default).
std::vector<std::string> try_mallocs(const std::vector<std::string>& asked) {
  for (const std::string& name : asked)
    if (name == "all" || mallocs::find_malloc(name) == nullptr) return {};
  return asked;
}

std::string working_directory_of(const trace::trace_header& h, const real_run_options& o,
                                 std::vector<std::string>& notes) {
  if (!o.working_directory.empty()) {
    if (!fs::is_directory(o.working_directory))
      throw usage_error(fmt::format("--cwd '{}' is not a directory", o.working_directory));
    return o.working_directory;
  }
  if (!h.context) {
    notes.push_back(fmt::format(
        "the trace (format version {}) records no working directory, stdin or environment: the "
        "real runs ran here, with stdin /dev/null and this environment (record it again, or pass "
        "--cwd and --stdin)",
        h.version));
    return {};
  }
  const std::string& cwd = h.context->working_directory;
  if (!cwd.empty() && !fs::is_directory(cwd))
    throw usage_error(fmt::format(
        "the trace's working directory '{}' is not a directory here: pass --cwd DIR, or "
        "--no-real",
        cwd));
  return cwd;
}

std::string stdin_of(const trace::trace_header& h, const real_run_options& o,
                     std::vector<std::string>& notes) {
  if (!o.stdin_path.empty()) {
    if (::access(o.stdin_path.c_str(), R_OK) != 0 || fs::is_directory(o.stdin_path))
      throw usage_error(fmt::format("--stdin '{}' is not a readable file", o.stdin_path));
    return o.stdin_path;
  }
  if (!h.context) return {};
  const std::string& path = h.context->stdin_path;
  if (path.empty()) {
    notes.push_back(
        "the recording's stdin was not a regular file (a terminal, a pipe or /dev/null): the "
        "real runs read /dev/null (pass --stdin FILE to feed them)");
    return {};
  }
  if (::access(path.c_str(), R_OK) != 0)
    throw usage_error(fmt::format(
        "the trace's stdin '{}' is not readable here: pass --stdin FILE, or --no-real", path));
  return path;
}

// A relative program path ("./app") names a file in the recorded working directory.
std::vector<std::string> command_of(const trace::trace_header& h, const std::string& cwd) {
  std::vector<std::string> command = h.command;
  std::string& program = command.front();
  if (program.find('/') != std::string::npos && program.front() != '/' && !cwd.empty())
    program = (fs::path(cwd) / program).lexically_normal().string();
  return command;
}

}  // namespace

real_runs_plan plan_real_runs(const trace::trace_header& header, const real_run_options& options) {
  if (header.command.empty() || header.command.front().empty())
    throw usage_error(
        "the trace records no command line to run: pass --real RESULTS (from `alloclab try -- "
        "PROG`) or --no-real");
  if (options.budget) parse_budget(*options.budget);  // refused before anything runs
  real_runs_plan plan;
  program::try_request& r = plan.request;
  r.working_directory = working_directory_of(header, options, plan.notes);
  r.stdin_path = stdin_of(header, options, plan.notes);
  if (header.context) r.environment = header.context->environment;
  r.command = command_of(header, r.working_directory);
  r.mallocs = try_mallocs(options.mallocs);
  r.variants = options.variants;
  r.budget = options.budget;
  r.wait_for_lock = options.wait_for_lock;
  r.out_directory = (fs::path(options.out_root.empty() ? "results" : options.out_root) /
                     ("try-" + utc_now("%Y%m%dT%H%M%SZ")))
                        .string();
  r.command_line = options.command_line;
  plan.notes.push_back(fmt::format(
      "real runs: `alloclab try` of `{}`{}{}{}, rounds paired (every malloc once per round, in a "
      "shuffled order); results in {}",
      shell_words(r.command), r.working_directory.empty() ? "" : " in " + r.working_directory,
      r.stdin_path.empty() ? "" : ", stdin " + r.stdin_path,
      header.context ? fmt::format(", {} recorded environment variable{}", r.environment.size(),
                                   r.environment.size() == 1 ? "" : "s")
                     : std::string(),
      r.out_directory));
  return plan;
}

}  // namespace alloclab::lab
