// `alloclab serve` (one server process per variant: workload x strategy x malloc) and
// `alloclab load` (drives a URL with hey, wrk or the open-loop client), registered on the CLI by
// one call from main/cli.cpp.
#pragma once

#include <memory>

namespace CLI {
class App;
}

namespace alloclab::lab::serve {

struct serve_request;
struct load_request;

class serve_commands {
 public:
  bool parsed() const;
  // Runs the parsed command; throws usage_error for bad input (exit 2).
  int execute() const;

 private:
  friend serve_commands add_serve_commands(CLI::App& app);
  CLI::App* serve_ = nullptr;
  CLI::App* load_ = nullptr;
  std::shared_ptr<serve_request> serve_request_;
  std::shared_ptr<load_request> load_request_;
};

serve_commands add_serve_commands(CLI::App& app);

// Environment variable set on the re-executed server: it must now prove its malloc live.
inline constexpr const char* preloaded_marker = "ALLOCLAB_SERVE_PRELOADED";

}  // namespace alloclab::lab::serve
