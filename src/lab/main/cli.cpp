#include "cli.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "main/command_registry.hpp"
#include "process/interrupt.hpp"
#include "compare/compare.hpp"
#include "compare/paired_compare.hpp"
#include "main/commands.hpp"
#include "cli/option_checks.hpp"
#include "main/replay_commands.hpp"
#include "mallocs/malloc_table.hpp"
#include "merge/merge_command.hpp"
#include "plan/frame_planner.hpp"
#include "plan/plan.hpp"
#include "render/shell_words.hpp"
#include "results/build_revision.hpp"

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

// --malloc's help: the malloc table's names, the first (glibc) the default.
std::string malloc_option_help() {
  const std::vector<std::string> names = mallocs::malloc_names();
  return fmt::format(
      "Comma-separated process-wide mallocs: {} (default), {}, all (every one; `alloclab list` "
      "shows which are installed), or a path to a malloc library (.so)",
      names.front(), fmt::join(names.begin() + 1, names.end(), ", "));
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
  command.add_option("--malloc", request.mallocs, malloc_option_help())->expected(1);
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

// The shared options of `run` after which --help lists frames' own ones (their rows'
// run_options_after): the last of each group.
constexpr const char* run_option_anchors[] = {"--repetitions", "--repetition-time",
                                              "--cell-timeout", "--shard-costs"};

bool is_run_option_anchor(const char* option) {
  return option != nullptr &&
         std::any_of(std::begin(run_option_anchors), std::end(run_option_anchors),
                     [&](const char* a) { return std::string(a) == option; });
}

}  // namespace

void add_frame_run_options(CLI::App& run, run_request& request, const char* after,
                           const std::vector<frame_planner>& rows) {
  for (const frame_planner& row : rows) {
    if (row.add_run_options == nullptr) continue;
    const bool here = after == nullptr ? !is_run_option_anchor(row.run_options_after)
                                       : row.run_options_after != nullptr &&
                                             std::string(row.run_options_after) == after;
    if (here) row.add_run_options(run, request.frame_options);
  }
}

namespace {

// "alloclab 0.9.0 (85ca753fab64)": the version and the revision it was built from.
std::string version_line() {
  const std::string revision = build_revision();
  return fmt::format("alloclab {} ({})", ALLOCLAB_LAB_VERSION,
                     revision.empty() ? "built outside a git checkout" : revision);
}

}  // namespace

namespace {

// The switches of `run` that become request fields only after parsing.
struct run_switches {
  std::string placement_check = "auto";
  bool no_placement_check = false;
  bool simulate = false, no_simulate = false;
};

// The targets of `compare`'s options, both modes.
struct compare_options {
  std::string a, b, output;
  double fail_on_regression = -1;
  double noise_floor = default_noise_floor_percent;
  paired_request paired;
  bool paired_mode = false, paired_wait = false;
};

// The built-in commands and what their options parse into.
struct builtin_commands {
  run_request request;
  run_switches switches;
  CLI::App* run = nullptr;
  CLI::App* help = nullptr;
  std::string help_topic;
  std::string results_path, output_path;  // report, validate, export
  CLI::App* report = nullptr;
  std::string html_path;
  bool rejudge = false;
  CLI::App* compare = nullptr;
  compare_options comparison;
  CLI::App* validate = nullptr;
  CLI::App* export_command = nullptr;
  std::string export_format;
  CLI::App* schema = nullptr;
  bool schema_markdown = false;
  CLI::App* merge = nullptr;
  std::vector<std::string> merge_inputs;
  std::string merge_output;
};

// `run`: where results go and how the budget is spent.
void add_run_budget_options(CLI::App& run, run_request& request) {
  run.add_option(
      "--out", request.out,
      "Results root directory (default: results); writes DIR/<UTC time>/ and DIR/latest");
  run.add_flag("--quick", request.quick,
               "Small smoke-test suite: every lab cell, few samples, a fixed plan (a few "
               "minutes)");
  run.add_option("--budget", request.budget,
                 "Wall time of the whole run, e.g. 5m, 90s, 1h (default 5m unless sizes are "
                 "given): every cell gets a first round of processes, the rest goes to "
                 "comparisons still open (docs/budget.md); 0 = the fixed plan");
  run.add_flag("--full", request.full,
               "The fixed plan: every cell 3 processes x 5 repetitions x 2000 samples (the "
               "same as --budget 0)");
  run.add_flag("--unpaired", request.unpaired,
               "Budgeted runs: time each cell's processes on their own, not in lockstep rings "
               "with the other cells of their workload (the design before pairing; "
               "docs/budget.md)");
  run.add_option("--repetition-time", request.repetition_ms,
                 "Budgeted runs: milliseconds of timed work per repetition (default 20)");
}

// `run`: the simulated cost, the machine lock, the placement check, missing mallocs, timeouts.
void add_run_machine_options(CLI::App& run, run_request& request, run_switches& switches) {
  run.add_flag("--simulate", switches.simulate,
               "Each batch and heap cell's simulated cost under Callgrind, on a second CPU beside "
               "the timing (docs/simulated-cost.md); default: on in a budgeted run, until the "
               "budget ends");
  run.add_flag("--no-simulate", switches.no_simulate, "No simulated cost")
      ->excludes(run.get_option("--simulate"));
  run.add_flag("--wait", request.wait_for_lock,
               "Queue behind another lab run measuring on this machine instead of exiting 2");
  run.add_option("--placement-check", switches.placement_check,
                 "Re-measure glibc cells under glibc_nocliff (memmove without its copy cliff) so "
                 "the report can tell placement-driven ratios apart: auto (default: when this "
                 "machine's probe finds a cliff), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  run.add_flag("--no-placement-check", switches.no_placement_check,
               "The same as --placement-check never");
  run.add_flag(
      "--skip-missing", request.skip_missing,
      "A named --malloc that is not installed gives a 'not installed' row but no failure exit");
  run.add_option("--cell-timeout", request.cell_timeout_seconds,
                 "Wall-clock limit in seconds of each cell's measuring process (default 600); "
                 "one that exceeds it is killed and its cell becomes a 'failed' row");
}

// `run`: fresh processes per cell, and one shard of the plan.
void add_run_process_options(CLI::App& run, run_request& request) {
  run.add_option("--processes", request.processes,
                 "Fresh processes per cell; its repetitions are shared out over them, so the "
                 "spread includes address-layout and heap-state effects (default 3, --quick 2)")
      ->check(unsigned_64_bit_integer())
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  run.add_option("--shard", request.shard,
                 "Measure one deterministic Nth of the plan: K/N (e.g. 2/3), or auto (from "
                 "ALLOCLAB_SHARD_INDEX/COUNT, JOB_COMPLETION_INDEX with ALLOCLAB_SHARD_COUNT, "
                 "SLURM_ARRAY_TASK_ID/COUNT or CI_NODE_INDEX/TOTAL); a workload's cells stay in "
                 "one shard; `alloclab merge` joins the shards (docs/fleet.md)");
  run.add_option("--shard-costs", request.shard_costs,
                 "With --shard: deal workloads by the seconds they took in this earlier run's "
                 "results.json (the same file for every shard) instead of estimates");
}

// `run` and its options, in the order --help lists them: the shared ones in groups, each
// frame's own after the shared option its row names.
void add_run_command(CLI::App& app, builtin_commands& c) {
  c.run = app.add_subcommand(
      "run",
      "Measure workloads x strategies; write results/<UTC time>/{results.json,report.md,"
      "report.html} and point results/latest at it");
  const std::vector<frame_planner>& rows = frame_planners();
  add_measurement_options(*c.run, c.request);
  add_frame_run_options(*c.run, c.request, run_option_anchors[0], rows);
  add_run_budget_options(*c.run, c.request);
  add_frame_run_options(*c.run, c.request, run_option_anchors[1], rows);
  add_run_machine_options(*c.run, c.request, c.switches);
  add_frame_run_options(*c.run, c.request, run_option_anchors[2], rows);
  add_run_process_options(*c.run, c.request);
  add_frame_run_options(*c.run, c.request, run_option_anchors[3], rows);
  add_frame_run_options(*c.run, c.request, nullptr, rows);
}

void add_report_command(CLI::App& app, builtin_commands& c) {
  c.report = app.add_subcommand(
      "report", "Re-render report.md from a results.json, as the run judged its claims");
  c.report->add_option("results", c.results_path, "results.json to render")->required();
  c.report->add_option("-o,--output", c.output_path, "Write the report here (default: stdout)");
  c.report->add_flag(
      "--rejudge", c.rejudge,
      "Re-judge the seed claims with this binary's claims file (the report says so)");
  c.report->add_option("--html", c.html_path,
                       "Also write the self-contained HTML report (charts inline) here");
}

void add_compare_command(CLI::App& app, builtin_commands& c) {
  compare_options& o = c.comparison;
  c.compare = app.add_subcommand(
      "compare", "Compare two results files cell by cell: B / A at p50 with interval and U test");
  c.compare->add_option("a", o.a, "results.json A (the reference); not with --paired");
  c.compare->add_option("b", o.b, "results.json B (the candidate); not with --paired");
  c.compare->add_option("-o,--output", o.output,
                        "Also write the comparison here: .html gets HTML, else Markdown");
  c.compare
      ->add_option("--fail-on-regression", o.fail_on_regression,
                   "Exit 1 when a cell is slower in B by more than PCT percent, outside the noise "
                   "(U test p < 0.05 and the interval beyond --noise-floor; --paired: decided "
                   "`candidate slower` by the stop rule)")
      ->check(finite_in_range(0.0, 1e6));
  add_paired_options(*c.compare, o.paired, o.paired_mode, o.paired_wait);
  c.compare
      ->add_option("--noise-floor", o.noise_floor,
                   fmt::format("Changes smaller than PCT percent are noise, whatever the U test "
                               "says (default {})",
                               default_noise_floor_percent))
      ->check(finite_in_range(0.0, 100.0));
}

// validate, export, schema and merge: commands over results files.
void add_results_file_commands(CLI::App& app, builtin_commands& c) {
  c.validate = app.add_subcommand("validate", "Check a results.json against the documented schema");
  c.validate->add_option("results", c.results_path, "results.json to check")->required();

  c.export_command = app.add_subcommand(
      "export", "Write a results.json in another tool's format (gbench: Google Benchmark JSON)");
  c.export_command->add_option("results", c.results_path, "results.json to export")->required();
  c.export_command->add_option("--format", c.export_format, "The format: gbench")->required();
  c.export_command->add_option("-o,--output", c.output_path, "Write here (default: stdout)");

  c.schema = app.add_subcommand(
      "schema", "Print the JSON Schema of results.json (generated from the results model)");
  c.schema->add_flag("--markdown", c.schema_markdown,
                     "Print the field tables of docs/results-schema.md instead");

  c.merge = app.add_subcommand(
      "merge",
      "Merge the shards of a plan (run --shard) into one results.json and report, or runs of "
      "several machine types into a fleet report");
  c.merge
      ->add_option("inputs", c.merge_inputs, "Run directories (or results roots, or results.json)")
      ->required();
  c.merge->add_option("-o,--output", c.merge_output, "Directory to write into")->required();
}

// The built-in commands, in the order --help lists them.
void add_builtin_commands(CLI::App& app, builtin_commands& c) {
  add_run_command(app, c);
  app.add_subcommand("list", "List workloads, strategies and mallocs");
  c.help = app.add_subcommand("help", "Show this help, or a command's: help COMMAND");
  c.help->add_option("command", c.help_topic, "The command to explain");
  add_report_command(app, c);
  add_compare_command(app, c);
  add_results_file_commands(app, c);
}

// `help [COMMAND]`: the whole program's help, or one command's.
int execute_help(const CLI::App& app, const std::string& topic_name,
                 const std::vector<std::string>& commands) {
  const CLI::App* topic = &app;
  if (!topic_name.empty()) {
    if (std::find(commands.begin(), commands.end(), topic_name) == commands.end())
      throw usage_error(fmt::format("help: no command '{}'; valid commands: {}", topic_name,
                                    fmt::join(commands, ", ")));
    topic = app.get_subcommand(topic_name);
  }
  print_or_throw(
      app.get_formatter()->make_help(topic, topic->get_name(), CLI::AppFormatMode::Normal));
  return 0;
}

// `compare`: two results files, or with --paired two builds measured side by side.
int execute_compare_command(compare_options& o, const std::string& command_line) {
  if (o.paired_mode) {
    if (!o.a.empty())
      throw usage_error("compare --paired takes no results files: it measures the two builds");
    if (o.paired.baseline_binary.empty() || o.paired.candidate_binary.empty())
      throw usage_error("compare --paired needs --baseline-binary and --candidate-binary");
    for (auto* list : {&o.paired.run.workloads, &o.paired.run.strategies, &o.paired.run.mallocs})
      split_commas(*list);
    o.paired.run.command_line = command_line;
    o.paired.fail_above_percent = o.fail_on_regression;
    return execute_paired_compare(o.paired, o.output, o.paired_wait);
  }
  if (o.b.empty())
    throw usage_error("compare needs two results files, A and B (or --paired and two builds)");
  return execute_compare(o.a, o.b, o.output, o.fail_on_regression, o.noise_floor);
}

// The request fields that come from switches, once the command line is parsed.
void finish_run_request(run_request& request, const run_switches& switches) {
  for (auto* list : {&request.workloads, &request.strategies, &request.frames, &request.mallocs})
    split_commas(*list);
  if (switches.simulate || switches.no_simulate) request.simulate = switches.simulate;
  request.placement_check = switches.no_placement_check
                                ? placement_check_mode::never
                                : parse_placement_check_mode(switches.placement_check);
}

// Runs the built-in command that was parsed (not help, nor list): its exit status, or nothing.
std::optional<int> execute_builtin(builtin_commands& c) {
  if (c.run->parsed()) return execute_run(c.request);
  if (c.report->parsed())
    return execute_report(c.results_path, c.output_path, c.html_path, c.rejudge);
  if (c.compare->parsed()) return execute_compare_command(c.comparison, c.request.command_line);
  if (c.validate->parsed()) return execute_validate(c.results_path);
  if (c.export_command->parsed())
    return execute_export(c.results_path, c.export_format, c.output_path);
  if (c.merge->parsed())
    return execute_merge(c.merge_inputs, c.merge_output, c.request.command_line);
  if (c.schema->parsed()) return execute_schema(c.schema_markdown);
  return std::nullopt;
}

// The exit status of a command that threw: 2 for bad input, 128 + the signal for an
// interrupted run, else 1.
int exit_status_of_current_exception() {
  try {
    throw;
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

// Parses the command line; the exit status when that ends the program (an error, --help,
// --version), else nothing.
std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv,
                                 const std::vector<std::string>& commands) {
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
  return std::nullopt;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{
      "alloclab: measures allocation strategies on the seeds' workloads and checks the seeds' "
      "claims"};
  app.set_version_flag("--version", version_line());
  app.require_subcommand(1);

  builtin_commands builtin;
  builtin.request.command_line = joined_arguments(argc, argv);
  add_builtin_commands(app, builtin);
  std::vector<std::string> commands = {"run",  "list",   "report", "validate", "compare",
                                       "help", "export", "merge",  "schema"};
  // serve, load, try, record, trace, replay, advise (main/command_registry.cpp)
  const std::vector<std::unique_ptr<frame_commands>> command_sets =
      add_registered_commands(app, builtin.request.command_line);
  for (const auto& set : command_sets)
    for (const auto& name : set->names()) commands.push_back(name);
  if (const std::optional<int> status = parse_or_exit(app, argc, argv, commands)) return *status;

  try {
    if (builtin.help->parsed()) return execute_help(app, builtin.help_topic, commands);
    finish_run_request(builtin.request, builtin.switches);
    if (const std::optional<int> status = execute_builtin(builtin)) return *status;
    for (const auto& set : command_sets)
      if (set->parsed()) return set->execute();
    return execute_list();
  } catch (...) {
    return exit_status_of_current_exception();
  }
}

}  // namespace alloclab::lab
