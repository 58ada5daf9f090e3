// The CLI's `record` and `trace info` commands. cli.cpp registers them with one call
// and dispatches to execute() when one of them was parsed.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace alloclab::trace {

struct record_request {
  std::string output = "alloclab.trace";
  std::vector<std::string> command;  ///< PROGRAM ARGS...
  bool no_timestamps = false;
  int zstd_level = 1;
  /// Every other process image the program starts (exec, in it or in any descendant) is
  /// recorded too, each into its own trace: OUTPUT.1, OUTPUT.2... in order of start.
  bool follow_exec = true;
  /// Every process the program forks without exec (in it or in any descendant) records into a
  /// trace of its own, numbered with the exec'd images.
  bool follow_fork = false;
};

class trace_commands {
 public:
  /// Adds `record` and `trace info` to `app`.
  explicit trace_commands(CLI::App& app);
  /// The command names, for the CLI's list of valid commands.
  static std::vector<std::string> names() { return {"record", "trace"}; }
  bool parsed() const;
  /// Runs the parsed command. Exit codes: 0 done; 1 the program exited non-zero (its trace is
  /// still written), or the trace could not be written (nothing is left at the output path), or
  /// `trace info` could not write its report; 128+N the program was killed by signal N (SIGTERM,
  /// SIGINT, SIGHUP and SIGQUIT sent to `record` are passed on to it); 2 bad input, refused
  /// before the program runs (one line on stderr). `record -o` writes a temporary file beside
  /// the target and renames a readable trace over it: only a regular file (or nothing) is
  /// replaced, symlinks are followed, and the program itself is refused. The traces of other
  /// images (follow_exec, follow_fork) are renamed to OUTPUT.N beside it; older OUTPUT.N traces past the last
  /// one are removed, so that `trace info OUTPUT` lists this run's images only.
  int execute() const;

 private:
  CLI::App* record_ = nullptr;
  CLI::App* trace_ = nullptr;
  CLI::App* info_ = nullptr;
  std::shared_ptr<record_request> request_ = std::make_shared<record_request>();
  std::shared_ptr<std::string> trace_path_ = std::make_shared<std::string>();
};

/// `alloclab record`: runs the program under the interposer. Exit codes as above.
int execute_record(const record_request& request);
/// `alloclab trace info`.
int execute_trace_info(const std::string& path);

}  // namespace alloclab::trace
