#include "cli.hpp"

#include <charconv>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "run_command.hpp"
#include "trace/trace_commands.hpp"

#ifndef ALLOCLAB_LAB_VERSION
#define ALLOCLAB_LAB_VERSION "unknown"
#endif

namespace alloclab::lab {
namespace {

constexpr int exit_usage = 2;
constexpr int exit_failure = 1;

std::string joined_arguments(int argc, char** argv) {
  std::string line = "alloclab";
  for (int i = 1; i < argc; ++i) line += std::string(" ") + argv[i];
  return line;
}

// CLI11 2.1 wraps "-3" and out-of-range values into an unsigned 64-bit option; refuse them first.
const CLI::Validator unsigned_64_bit(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const char* end = text.data() + text.size();
      auto [ptr, error] = std::from_chars(text.data(), end, value);
      if (error == std::errc::result_out_of_range)
        return "value " + text + " does not fit in 64 bits";
      if (error != std::errc() || ptr != end)
        return "value " + text + " is not an unsigned integer";
      return {};
    },
    "UINT64");

// A first argument that names no command gets its own message, not "a subcommand is required".
std::string unknown_command(int argc, char** argv, const std::vector<std::string>& commands) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const std::string first = argv[1];
  for (const auto& c : commands)
    if (c == first) return {};
  std::string valid;
  for (const auto& c : commands) valid += (valid.empty() ? "" : ", ") + c;
  return "unknown command '" + first + "'; valid commands: " + valid;
}

// The options shared by `run` and the hidden `worker`.
void add_measurement_options(CLI::App& command, run_request& request) {
  command
      .add_option("--workloads", request.workloads,
                  "Comma-separated workloads (default: all; see `alloclab list`)")
      ->delimiter(',');
  command
      .add_option("--strategies", request.strategies, "Comma-separated strategies (default: all)")
      ->delimiter(',');
  command
      .add_option("--iterations", request.iterations,
                  "Timed samples per cell per repetition (1-10000000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{10'000'000}));
  command
      .add_option("--repetitions", request.repetitions,
                  "Repetitions, strategies shuffled in each (1-1000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  command
      .add_option("--seed", request.seed, "Seed for workload data and run order (unsigned 64-bit)")
      ->check(unsigned_64_bit);
  command.add_flag("--allow-debug", request.allow_debug,
                   "Run an unoptimised build anyway; outputs are stamped DEBUG");
  command
      .add_option("--malloc", request.mallocs,
                  "Comma-separated process-wide mallocs: glibc (default), glibc_arena2, "
                  "glibc_trim, jemalloc, "
                  "mimalloc, tcmalloc, tbbmalloc, all, or a path to a malloc library (.so)")
      ->delimiter(',');
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "alloclab: measures allocation strategies on the seeds' workloads and checks the seeds' "
      "claims"};
  app.set_version_flag("--version", std::string("alloclab ") + ALLOCLAB_LAB_VERSION);
  app.require_subcommand(1);

  run_request request;
  request.command_line = joined_arguments(argc, argv);

  CLI::App* run = app.add_subcommand(
      "run", "Measure workloads x strategies; write results/<UTC time>/{results.json,report.md}");
  add_measurement_options(*run, request);
  run->add_option(
      "--out", request.out,
      "Results root directory (default: results); writes DIR/<UTC time>/ and DIR/latest");
  run->add_flag("--quick", request.quick, "Small smoke-test suite (< 30 s)");
  run->add_flag(
      "--skip-missing", request.skip_missing,
      "A named --malloc that is not installed gives a 'not installed' row but no failure exit");
  run->add_option("--cell-timeout", request.cell_timeout_seconds,
                  "Wall-clock limit in seconds of each isolated worker (default 600); one that "
                  "exceeds it is "
                  "killed and becomes a 'failed' row")
      ->check(CLI::Range(0.1, 86400.0));
  run->add_option("--processes", request.processes,
                  "Spread the repetitions over this many processes, so that the spread between "
                  "repetitions includes address-layout and heap-state effects (default 3, "
                  "--quick 2; 1 = all in this process)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));

  CLI::App* worker = app.add_subcommand(
      "worker",
      "Measure one workload (under --malloc, proven live) and print its results JSON on stdout");
  worker->group("");  // hidden: for parent processes that isolate cells
  add_measurement_options(*worker, request);
  worker->add_flag("--quick", request.quick, "Quick-suite sizes");

  app.add_subcommand("list", "List workloads, strategies and mallocs");

  std::string results_path, output_path;
  CLI::App* report =
      app.add_subcommand("report", "Re-render report.md from a results.json (claims re-judged)");
  report->add_option("results", results_path, "results.json to render")->required();
  report->add_option("-o,--output", output_path, "Write the report here (default: stdout)");

  CLI::App* validate =
      app.add_subcommand("validate", "Check a results.json against the documented schema");
  validate->add_option("results", results_path, "results.json to check")->required();

  const trace::trace_commands trace_commands(app);

  std::vector<std::string> commands = {"run", "list", "report", "validate", "worker"};
  for (const auto& name : trace::trace_commands::names()) commands.push_back(name);
  if (std::string unknown = unknown_command(argc, argv, commands); !unknown.empty()) {
    std::cerr << "alloclab: error: " << unknown << '\n';
    return exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "alloclab: error: " << e.what() << " (see --help)\n";
    return exit_usage;
  }

  try {
    if (run->parsed()) return execute_run(request);
    if (worker->parsed()) return execute_worker(request);
    if (report->parsed()) return execute_report(results_path, output_path);
    if (validate->parsed()) return execute_validate(results_path);
    if (trace_commands.parsed()) return trace_commands.execute();
    return execute_list();
  } catch (const usage_error& e) {
    std::cerr << "alloclab: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "\nalloclab: FAILED: " << e.what() << '\n';
    return exit_failure;
  }
}

}  // namespace alloclab::lab
