// The `alloclab` binary that users run. `record` runs here, in a binary that loads only what
// recording needs (libstdc++, fmt, zstd); every other command is exec'd, arguments unchanged, into
// the full lab, `alloclab-lab` next to this binary. The full lab links the serve frame's HTTP, TLS
// and metrics libraries: loading them took ~6 ms of the ~10 ms of CPU that
// `alloclab record -- /bin/true` cost, time added to every recorded run (docs/trace-format.md,
// "Overhead"). A `record` command line that does not parse (--help, a bad option) goes to the
// full lab too, which has the same `record` and says what is wrong in its own words.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "trace/trace_commands.hpp"

namespace {

constexpr const char* lab_binary = "alloclab-lab";

// Replaces this process with the full lab; returns only when it cannot.
int run_lab(char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path lab = self.parent_path() / lab_binary;
  if (!ec) ::execv(lab.c_str(), argv);
  std::cerr << "alloclab: FAILED: cannot execute " << (ec ? lab_binary : lab.string()) << ": "
            << (ec ? ec.message() : std::strerror(errno)) << '\n';
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "record") != 0) return run_lab(argv);
  CLI::App app;
  const alloclab::trace::trace_commands commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    return run_lab(argv);
  }
  try {
    return commands.execute();
  } catch (const std::exception& e) {  // as the full lab reports an unexpected failure
    std::cerr << "\nalloclab: FAILED: " << e.what() << '\n';
    return 1;
  }
}
