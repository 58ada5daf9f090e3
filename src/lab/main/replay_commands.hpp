// `alloclab replay TRACE` (the pipeline with the replay frame alone, written like `run`) and
// `alloclab advise TRACE` (recommendations from a trace and its replay's results, each citing
// its figure). cli.cpp registers both with one call and dispatches when one was parsed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/advise.hpp"
#include "model/document.hpp"
#include "plan/request.hpp"
#include "stats/decision.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

struct replay_command_request {
  std::string trace;
  std::string results;                // advise --results
  std::string real;                   // advise --real: a program-frame results.json
  bool no_real = false;               // advise --no-real: the replay's estimate alone
  std::optional<std::string> budget;  // advise --budget: the real runs' (try's --budget)
  std::string working_directory;      // advise --cwd: the real runs' (default: recorded)
  std::string stdin_path;             // advise --stdin: the real runs' (default: recorded)
  std::string variants;               // --variants, as typed (parsed into run.malloc_variants)
  double noise_floor_percent = default_noise_floor_percent;  // advise --noise-floor
  run_request run;  // mallocs, out, repetitions, processes, quick, ...
};

class replay_commands {
 public:
  // Adds `replay` and `advise` to `app`; `command_line` is the whole invocation.
  replay_commands(CLI::App& app, const std::string& command_line);
  static std::vector<std::string> names() { return {"replay", "advise"}; }
  bool parsed() const;
  // Runs the parsed command; throws usage_error for bad input (exit 2).
  int execute() const;

 private:
  CLI::App* replay_ = nullptr;
  CLI::App* advise_ = nullptr;
  std::shared_ptr<replay_command_request> request_ = std::make_shared<replay_command_request>();
};

// `alloclab replay`: reads and checks the trace (a damaged one is a usage_error), then runs the
// pipeline as `run` does. Returns run's exit status.
int execute_replay(run_request request, const std::string& trace_path);

// `alloclab __malloc-env NAME`: the environment a worker under that malloc gets, one `env`
// argument a line (-uNAME to remove, NAME=VALUE to set), for scripts that run real programs
// under each malloc (scripts/validate-replay.sh). Exit 2 when it is unknown or not installed.
int print_malloc_env(const char* name);

// The recommendations for `trace_path` from `results` (a results.json with a replay frame) and
// real runs of the program (advise/advise.hpp). Throws usage_error when the results have no
// replay of a trace.
std::string advise(const std::string& trace_path, const model::document& results,
                   const advise_options& options);

}  // namespace alloclab::lab
