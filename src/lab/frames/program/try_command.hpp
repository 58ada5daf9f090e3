// `alloclab try [options] -- PROG ARGS`: the program frame from the command line. Runs PROG
// under each malloc and knob variant in interleaved shuffled rounds and writes DIR/results.json,
// DIR/report.md and DIR/report.html, then prints the summary. cli.cpp registers the command
// with one call and dispatches when it was parsed.
//
// Example:
//   CLI::App app;
//   const alloclab::program::try_command command(app, "alloclab try -- true");
//   app.parse(argc, argv);
//   if (command.parsed()) return command.execute();
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace alloclab::program {

struct try_request {
  std::vector<std::string> mallocs;  ///< empty: every installed one
  std::string variants;
  std::size_t rounds = 0;             ///< a fixed number of rounds; 0: stop adaptively
  std::optional<std::string> budget;  ///< adaptive: wall time of all rounds (default 5m)
  std::size_t min_rounds = 4, max_rounds = 40;
  double timeout_seconds = 600;
  std::string stdin_path;
  std::string working_directory;
  /// Set in every run (advise: the trace's recorded environment).
  std::vector<std::pair<std::string, std::string>> environment;
  std::string output = "discard";
  std::string out_directory;   ///< empty: results/try-<UTC time>
  std::uint64_t seed = 0;      ///< 0: drawn at random (and recorded)
  bool wait_for_lock = false;  ///< --wait: queue behind another lab run
  std::vector<std::string> command;
  std::string command_line;
};

class try_command {
 public:
  try_command(CLI::App& app, const std::string& command_line);
  static const char* name() { return "try"; }
  bool parsed() const;
  /// Throws lab::usage_error for bad input (exit 2), run_interrupted on SIGINT/SIGTERM.
  int execute() const;

 private:
  CLI::App* command_ = nullptr;
  std::shared_ptr<try_request> request_ = std::make_shared<try_request>();
};

/// The whole command for an already parsed request: 0, or 1 when a run failed. `results_path`,
/// when given, receives the path of the results.json written.
int execute_try(const try_request& request, std::string* results_path = nullptr);

}  // namespace alloclab::program
