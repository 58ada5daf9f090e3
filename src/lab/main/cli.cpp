#include "cli.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "main/frame_registry.hpp"
#include "process/interrupt.hpp"
#include "compare/compare.hpp"
#include "compare/paired_compare.hpp"
#include "main/commands.hpp"
#include "main/option_checks.hpp"
#include "main/replay_commands.hpp"
#include "merge/merge_command.hpp"
#include "plan/plan.hpp"
#include "render/shell_words.hpp"
#include "results/build_revision.hpp"
#include "trace/trace_commands.hpp"

#ifndef ALLOCLAB_LAB_VERSION
#define ALLOCLAB_LAB_VERSION "unknown"
#endif

namespace alloclab::lab {
namespace {

constexpr int exit_usage = 2;
constexpr int exit_failure = 1;

std::string joined_arguments(int argc, char** argv) {
  std::vector<std::string> words{"alloclab"};
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i]);
  return shell_words(words);
}

// A first argument that names no command gets its own message, not "a subcommand is required".
std::string unknown_command(int argc, char** argv, const std::vector<std::string>& commands) {
  if (argc < 2) return {};
  const std::string first = argv[1];
  if (first[0] == '-') {
    for (const char* known : {"-h", "--help", "--version"})
      if (first == known) return {};
    return "unknown option '" + first + "' before the command; see `alloclab --help`";
  }
  for (const auto& c : commands)
    if (c == first) return {};
  std::string valid;
  for (const auto& c : commands) valid += (valid.empty() ? "" : ", ") + c;
  return "unknown command '" + first + "'; valid commands: " + valid;
}

// What to measure and under which seed and mallocs: `run`'s and `compare --paired`'s.
void add_selection_options(CLI::App& command, run_request& request) {
  command
      .add_option("--workloads", request.workloads,
                  "Comma-separated workloads (default: all; see `alloclab list`)")
      ->expected(1);
  command
      .add_option("--strategies", request.strategies, "Comma-separated strategies (default: all)")
      ->expected(1);
  command
      .add_option("--seed", request.seed, "Seed for workload data and run order (unsigned 64-bit)")
      ->check(unsigned_64_bit_integer());
  command.add_flag("--allow-debug", request.allow_debug,
                   "Run an unoptimised build anyway; outputs are stamped DEBUG");
  command
      .add_option("--malloc", request.mallocs,
                  "Comma-separated process-wide mallocs: glibc (default), glibc_arena2, "
                  "glibc_trim, glibc_nocliff, jemalloc, mimalloc, tcmalloc, tbbmalloc, dlmalloc, "
                  "newlib, newlib_nano, all (every one; `alloclab list` shows which are "
                  "installed), or a path to a "
                  "malloc library (.so)")
      ->expected(1);
}

// The options of `run`.
void add_measurement_options(CLI::App& command, run_request& request) {
  add_selection_options(command, request);
  command
      .add_option("--frames", request.frames,
                  "Comma-separated frames to measure in: " +
                      fmt::format("{}", fmt::join(frame_names(), ", ")) +
                      " (default: the frames the workloads belong to)")
      ->expected(1);
  command
      .add_option("--iterations", request.iterations,
                  "Timed samples per cell per repetition (1-10000000)")
      ->check(unsigned_64_bit_integer())
      ->check(CLI::Range(std::size_t{1}, std::size_t{10'000'000}));
  command
      .add_option("--repetitions", request.repetitions,
                  "Repetitions of each cell, shared out over its --processes (1-1000)")
      ->check(unsigned_64_bit_integer())
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
}

// `compare --paired`: two lab binaries timed cell by cell in lockstep (docs/ci-gate.md). Every
// option of the mode needs --paired.
void add_paired_options(CLI::App& compare, paired_request& paired, bool& requested, bool& wait) {
  CLI::Option* flag = compare.add_flag(
      "--paired", requested,
      "Measure instead of reading files: run every cell of two builds (--baseline-binary, "
      "--candidate-binary) side by side in lockstep rings and decide each by the stop rule with "
      "an equivalence margin (docs/ci-gate.md)");
  const auto needs_paired = [flag](CLI::Option* o) { o->needs(flag); };
  needs_paired(compare.add_option("--baseline-binary", paired.baseline_binary,
                                  "--paired: the reference build's alloclab-lab (or alloclab)"));
  needs_paired(compare.add_option("--candidate-binary", paired.candidate_binary,
                                  "--paired: the build under test"));
  add_selection_options(compare, paired.run);
  for (const char* name : {"--workloads", "--strategies", "--seed", "--allow-debug", "--malloc"})
    needs_paired(compare.get_option(name));
  needs_paired(compare.add_option("--budget", paired.run.budget,
                                  "--paired: wall time the ring runs may take after the first "
                                  "look (default 5m), e.g. 90s"));
  needs_paired(compare
                   .add_option("--runs", paired.most_runs,
                               "--paired: the most ring runs a cell may get (2-64, default 8)")
                   ->check(unsigned_64_bit_integer()));
  needs_paired(compare
                   .add_option("--margin", paired.margin_percent,
                               "--paired: the equivalence margin in percent (default 2)")
                   ->check(finite_in_range(0.0, 100.0)));
  needs_paired(compare.add_option("--repetition-time", paired.run.repetition_ms,
                                  "--paired: milliseconds of timed work per slice (default 20)"));
  needs_paired(compare.add_option("--cell-timeout", paired.run.cell_timeout_seconds,
                                  "--paired: wall-clock limit in seconds of each worker"));
  needs_paired(compare.add_flag("--wait", wait,
                                "--paired: queue behind another lab run measuring on this "
                                "machine instead of exiting 2"));
}

}  // namespace

// (CLI11's own delimiter would let an empty list swallow the next option as a value.)
void split_commas(std::vector<std::string>& values) {
  std::vector<std::string> names;
  for (const std::string& value : values) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = value.find(',', start);
      names.push_back(value.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  values = std::move(names);
}

namespace {

// "alloclab 0.9.0 (85ca753fab64)": the version and the revision it was built from.
std::string version_line() {
  const std::string revision = build_revision();
  return fmt::format("alloclab {} ({})", ALLOCLAB_LAB_VERSION,
                     revision.empty() ? "built outside a git checkout" : revision);
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "alloclab: measures allocation strategies on the seeds' workloads and checks the seeds' "
      "claims"};
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1);

  run_request request;
  request.command_line = joined_arguments(argc, argv);
  std::string placement_check = "auto";
  bool no_placement_check = false;
  bool simulate_flag = false, no_simulate_flag = false;

  CLI::App* run = app.add_subcommand(
      "run",
      "Measure workloads x strategies; write results/<UTC time>/{results.json,report.md,"
      "report.html} and point results/latest at it");
  add_measurement_options(*run, request);
  run->add_option(
      "--out", request.out,
      "Results root directory (default: results); writes DIR/<UTC time>/ and DIR/latest");
  run->add_flag("--quick", request.quick,
                "Small smoke-test suite: every lab cell, few samples, a fixed plan (a few "
                "minutes)");
  run->add_option("--budget", request.budget,
                  "Wall time of the whole run, e.g. 5m, 90s, 1h (default 5m unless sizes are "
                  "given): every cell gets a first round of processes, the rest goes to "
                  "comparisons still open (docs/budget.md); 0 = the fixed plan");
  run->add_flag("--full", request.full,
                "The fixed plan: every cell 3 processes x 5 repetitions x 2000 samples (the "
                "same as --budget 0)");
  run->add_flag("--unpaired", request.unpaired,
                "Budgeted runs: time each cell's processes on their own, not in lockstep rings "
                "with the other cells of their workload (the design before pairing; "
                "docs/budget.md)");
  run->add_option("--repetition-time", request.repetition_ms,
                  "Budgeted runs: milliseconds of timed work per repetition (default 20)");
  run->add_option("--retention-horizon", request.retention_horizon_seconds,
                  "Heap frame: seconds retention is watched after the last free, idle and under "
                  "light allocation (default 30 in the default plan, else 0: not watched)");
  run->add_flag("--simulate", simulate_flag,
                "Each batch and heap cell's simulated cost under Callgrind, on a second CPU beside "
                "the timing (docs/simulated-cost.md); default: on in a budgeted run, until the "
                "budget ends");
  run->add_flag("--no-simulate", no_simulate_flag, "No simulated cost")
      ->excludes(run->get_option("--simulate"));
  run->add_flag("--wait", request.wait_for_lock,
                "Queue behind another lab run measuring on this machine instead of exiting 2");
  run->add_option("--placement-check", placement_check,
                  "Re-measure glibc cells under glibc_nocliff (memmove without its copy cliff) so "
                  "the report can tell placement-driven ratios apart: auto (default: when this "
                  "machine's probe finds a cliff), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  run->add_flag("--no-placement-check", no_placement_check, "The same as --placement-check never");
  run->add_flag(
      "--skip-missing", request.skip_missing,
      "A named --malloc that is not installed gives a 'not installed' row but no failure exit");
  run->add_option("--cell-timeout", request.cell_timeout_seconds,
                  "Wall-clock limit in seconds of each cell's measuring process (default 600); "
                  "one that exceeds it is killed and its cell becomes a 'failed' row");
  run->add_option("--serve-duration", request.serve_duration_seconds,
                  "serve frame: seconds of each closed-loop load generator (hey, wrk) per server "
                  "(default 4, --quick 1; seed 004 used 50)");
  run->add_option("--processes", request.processes,
                  "Fresh processes per cell; its repetitions are shared out over them, so the "
                  "spread includes address-layout and heap-state effects (default 3, --quick 2)")
      ->check(unsigned_64_bit_integer())
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));

  run->add_option("--shard", request.shard,
                  "Measure one deterministic Nth of the plan: K/N (e.g. 2/3), or auto (from "
                  "ALLOCLAB_SHARD_INDEX/COUNT, JOB_COMPLETION_INDEX with ALLOCLAB_SHARD_COUNT, "
                  "SLURM_ARRAY_TASK_ID/COUNT or CI_NODE_INDEX/TOTAL); a workload's cells stay in "
                  "one shard; `alloclab merge` joins the shards (docs/fleet.md)");
  run->add_option("--shard-costs", request.shard_costs,
                  "With --shard: deal workloads by the seconds they took in this earlier run's "
                  "results.json (the same file for every shard) instead of estimates");
  run->add_option("--memory-budget", request.memory_budget,
                  "Memory frame: the budget_bursts workload's budget in bytes (K/M/G suffixes); "
                  "default: the cgroup's limit when one is set, else 256M (--quick 64M)");
  run->add_option("--huge-table-bytes", request.huge_table_bytes,
                  "Memory frame: the huge_table workload's table size (default 256M, --quick 32M)");

  app.add_subcommand("list", "List workloads, strategies and mallocs");
  CLI::App* help = app.add_subcommand("help", "Show this help, or a command's: help COMMAND");
  std::string help_topic;
  help->add_option("command", help_topic, "The command to explain");

  std::string results_path, output_path;
  CLI::App* report = app.add_subcommand(
      "report", "Re-render report.md from a results.json, as the run judged its claims");
  report->add_option("results", results_path, "results.json to render")->required();
  report->add_option("-o,--output", output_path, "Write the report here (default: stdout)");
  std::string html_path;
  bool rejudge = false;
  report->add_flag("--rejudge", rejudge,
                   "Re-judge the seed claims with this binary's claims file (the report says so)");
  report->add_option("--html", html_path,
                     "Also write the self-contained HTML report (charts inline) here");

  std::string compare_a, compare_b, compare_output;
  double fail_on_regression = -1;
  double noise_floor = default_noise_floor_percent;
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two results files cell by cell: B / A at p50 with interval and U test");
  compare->add_option("a", compare_a, "results.json A (the reference); not with --paired");
  compare->add_option("b", compare_b, "results.json B (the candidate); not with --paired");
  compare->add_option("-o,--output", compare_output,
                      "Also write the comparison here: .html gets HTML, else Markdown");
  compare
      ->add_option("--fail-on-regression", fail_on_regression,
                   "Exit 1 when a cell is slower in B by more than PCT percent, outside the noise "
                   "(U test p < 0.05 and the interval beyond --noise-floor; --paired: decided "
                   "`candidate slower` by the stop rule)")
      ->check(finite_in_range(0.0, 1e6));
  paired_request paired;
  bool paired_mode = false, paired_wait = false;
  add_paired_options(*compare, paired, paired_mode, paired_wait);
  compare
      ->add_option("--noise-floor", noise_floor,
                   fmt::format("Changes smaller than PCT percent are noise, whatever the U test "
                               "says (default {})",
                               default_noise_floor_percent))
      ->check(finite_in_range(0.0, 100.0));

  CLI::App* validate =
      app.add_subcommand("validate", "Check a results.json against the documented schema");
  validate->add_option("results", results_path, "results.json to check")->required();

  std::string export_format;
  CLI::App* export_command = app.add_subcommand(
      "export", "Write a results.json in another tool's format (gbench: Google Benchmark JSON)");
  export_command->add_option("results", results_path, "results.json to export")->required();
  export_command->add_option("--format", export_format, "The format: gbench")->required();
  export_command->add_option("-o,--output", output_path, "Write here (default: stdout)");

  bool schema_markdown = false;
  CLI::App* schema = app.add_subcommand(
      "schema", "Print the JSON Schema of results.json (generated from the results model)");
  schema->add_flag("--markdown", schema_markdown,
                   "Print the field tables of docs/results-schema.md instead");

  std::vector<std::string> merge_inputs;
  std::string merge_output;
  CLI::App* merge = app.add_subcommand(
      "merge",
      "Merge the shards of a plan (run --shard) into one results.json and report, or runs of "
      "several machine types into a fleet report");
  merge->add_option("inputs", merge_inputs, "Run directories (or results roots, or results.json)")
      ->required();
  merge->add_option("-o,--output", merge_output, "Directory to write into")->required();

  std::vector<std::string> commands = {"run",  "list",   "report", "validate", "compare",
                                       "help", "export", "merge",  "schema"};
  std::vector<std::unique_ptr<frame_commands>> frame_command_sets;  // serve, load, try
  for (const auto& row : frame_table())
    if (row.add_commands != nullptr) {
      frame_command_sets.push_back(row.add_commands(app, request.command_line));
      for (const auto& name : frame_command_sets.back()->names()) commands.push_back(name);
    }
  const trace::trace_commands trace_commands(app);
  const replay_commands replay(app, request.command_line);

  for (const auto& name : trace::trace_commands::names()) commands.push_back(name);
  for (const auto& name : replay_commands::names()) commands.push_back(name);
  if (std::string unknown = unknown_command(argc, argv, commands); !unknown.empty()) {
    std::cerr << "alloclab: error: " << unknown << '\n';
    return exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version: a failed write is still a failure
      const int status = app.exit(e);
      std::cout.flush();
      return std::cout ? status : exit_failure;
    }
    std::cerr << "alloclab: error: " << e.what() << " (see --help)\n";
    return exit_usage;
  }

  try {
    if (help->parsed()) {
      const CLI::App* topic = &app;
      if (!help_topic.empty()) {
        if (std::find(commands.begin(), commands.end(), help_topic) == commands.end())
          throw usage_error(fmt::format("help: no command '{}'; valid commands: {}", help_topic,
                                        fmt::join(commands, ", ")));
        topic = app.get_subcommand(help_topic);
      }
      print_or_throw(
          app.get_formatter()->make_help(topic, topic->get_name(), CLI::AppFormatMode::Normal));
      return 0;
    }
    for (auto* list : {&request.workloads, &request.strategies, &request.frames, &request.mallocs})
      split_commas(*list);
    if (simulate_flag || no_simulate_flag) request.simulate = simulate_flag;
    request.placement_check = no_placement_check ? placement_check_mode::never
                                                 : parse_placement_check_mode(placement_check);
    if (run->parsed()) return execute_run(request);
    if (report->parsed()) return execute_report(results_path, output_path, html_path, rejudge);
    if (compare->parsed() && paired_mode) {
      if (!compare_a.empty())
        throw usage_error("compare --paired takes no results files: it measures the two builds");
      if (paired.baseline_binary.empty() || paired.candidate_binary.empty())
        throw usage_error("compare --paired needs --baseline-binary and --candidate-binary");
      for (auto* list : {&paired.run.workloads, &paired.run.strategies, &paired.run.mallocs})
        split_commas(*list);
      paired.run.command_line = request.command_line;
      paired.fail_above_percent = fail_on_regression;
      return execute_paired_compare(paired, compare_output, paired_wait);
    }
    if (compare->parsed()) {
      if (compare_b.empty())
        throw usage_error("compare needs two results files, A and B (or --paired and two builds)");
      return execute_compare(compare_a, compare_b, compare_output, fail_on_regression, noise_floor);
    }
    if (validate->parsed()) return execute_validate(results_path);
    if (export_command->parsed()) return execute_export(results_path, export_format, output_path);
    if (merge->parsed()) return execute_merge(merge_inputs, merge_output, request.command_line);
    if (schema->parsed()) return execute_schema(schema_markdown);
    for (const auto& set : frame_command_sets)
      if (set->parsed()) return set->execute();
    if (trace_commands.parsed()) return trace_commands.execute();
    if (replay.parsed()) return replay.execute();
    return execute_list();
  } catch (const usage_error& e) {
    std::cerr << "alloclab: error: " << e.what() << '\n';
    return exit_usage;
  } catch (const run_interrupted& e) {
    std::cerr << "\nalloclab: " << e.what() << "; no worker left running, nothing written\n";
    return 128 + e.signal();
  } catch (const output_error& e) {
    std::cerr << "alloclab: error: " << e.what() << '\n';
    return exit_failure;
  } catch (const std::exception& e) {
    std::cerr << "\nalloclab: FAILED: " << e.what() << '\n';
    return exit_failure;
  }
}

}  // namespace alloclab::lab
