#include "frames/program/try_command.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "frames/program/figures.hpp"
#include "frames/program/program_results.hpp"
#include "frames/program/program_plan.hpp"
#include "frames/program/stopping.hpp"
#include "process/interrupt.hpp"
#include "process/noise_gate.hpp"
#include "process/machine_lock.hpp"
#include "cli/option_checks.hpp"
#include "measure/build_guard.hpp"
#include "model/document.hpp"
#include "plan/request.hpp"
#include "io/atomic_write.hpp"
#include "io/output.hpp"
#include "text/plural.hpp"
#include "render/run_directory.hpp"
#include "results/results_builder.hpp"
#include "schedule/executor.hpp"
#include "schedule/round_run.hpp"

namespace alloclab::program {
namespace fs = std::filesystem;
using lab::usage_error;

namespace {

// When the run began, and the noise gate watching it.
struct run_clock {
  std::string created;
  std::chrono::steady_clock::time_point start;
  process::periodic_noise_watch* noise;
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

// -o, or results/try-<UTC time>: writable before anything runs.
fs::path writable_directory(const try_request& r) {
  const fs::path directory = r.out_directory.empty()
                                 ? fs::path("results") / ("try-" + lab::utc_now("%Y%m%dT%H%M%SZ"))
                                 : fs::path(r.out_directory);
  try {
    lab::ensure_writable_directory(directory);
  } catch (const std::system_error& e) {
    throw usage_error(fmt::format("try: -o '{}' is not a writable directory: {}",
                                  directory.string(), e.code().message()));
  }
  return directory;
}

// A line on stderr as each run ends: its round, its place in the round and its combination.
class progress_lines {
 public:
  progress_lines(const lab::run_plan& plan, bool adaptive) : plan_(plan), adaptive_(adaptive) {}

  void operator()(const lab::task& t, const lab::measurement_record& r) {
    static const bool terminal = ::isatty(STDERR_FILENO) != 0;
    const std::size_t position = finished_++ % plan_.cells.size();  // 0-based, in its round
    std::cerr << fmt::format("{}round {} of {}{}, run {}/{}: {:<40}", terminal ? "\r" : "",
                             t.part + 1, adaptive_ ? "at most " : "", plan_.sizes.processes,
                             position + 1, plan_.cells.size(), plan_.cells.at(t.cell).strategy)
              << (r.status == "ok" ? (terminal ? "" : "\n") : "\n  failed: " + r.reason + "\n")
              << std::flush;
  }

 private:
  const lab::run_plan& plan_;
  bool adaptive_;
  std::size_t finished_ = 0;
};

// The rounds' stop rule on each run's CPU time (schedule/round_stopping.hpp) as their look: a
// look line on stderr when it takes one.
class round_looks {
 public:
  round_looks(const stopping_plan& stopping, const try_plan& plan)
      : stopper_(stopping, judged_cpu(plan.combinations, lab::default_noise_floor_percent / 100)) {}

  bool operator()(const lab::round_records& so_far) {
    const stopping_outcome& outcome = stopper_.outcome();
    const std::size_t looks = outcome.looks_taken;
    const bool more = stopper_.another_round(lab::round_readings(so_far, stop_figure),
                                             so_far.completed, so_far.duration_seconds);
    if (outcome.looks_taken != looks)
      std::cerr << fmt::format("\nlook {} after {}: {} of {} decided{}\n", outcome.looks_taken,
                               lab::counted(so_far.completed, "round"), outcome.decided,
                               lab::counted(outcome.compared, "comparison"),
                               more ? "" : "; " + outcome.stopped_because);
    return more;
  }
  round_stopper& stopper() { return stopper_; }

 private:
  round_stopper stopper_;
};

// An interrupted run keeps the runs it finished (none: the interrupt ends the command).
void report_interrupt(const lab::round_records& ran, const std::vector<run_row>& rows,
                      round_stopper& stopper) {
  if (ran.interrupted_by == 0) return;
  if (!rows.empty()) {
    stopper.interrupted(lab::round_readings(ran, stop_figure), ran.completed, ran.interrupted_by);
    std::cerr << fmt::format(
        "\nalloclab: interrupted by signal {}; no run left running; the "
        "results of the runs so far ({} rounds, {} runs) follow\n",
        ran.interrupted_by, ran.completed, rows.size());
    return;
  }
  throw lab::run_interrupted(ran.interrupted_by);
}

// results.json, report.md and report.html of the run, by the lab's one run-directory writer;
// returns the document as they were rendered from.
lab::model::document write_try_directory(const fs::path& directory, lab::model::document results) {
  try {
    lab::write_run_directory(directory, results);
    return results;
  } catch (const lab::run_directory_error& e) {
    throw lab::output_error(e.what());
  }
}

// The run's results model, by the lab's one results builder over the rounds' records (the
// program row's results part adds the program section), timed by the run's own clock.
lab::model::document results_of(const try_request& request, const lab::run_plan& plan,
                                const lab::round_records& ran, const round_stopper& stopper,
                                const run_clock& clock) {
  const lab::run_records run = run_records_of(ran, stopper.outcome(), clock.seconds());
  lab::results_context context;
  context.build = lab::current_build();
  context.command_line = request.command_line;
  context.created_utc = clock.created;
  context.noise = clock.noise->finish();
  return lab::build_results(plan, run, context);
}

}  // namespace

try_command::try_command(CLI::App& app, const std::string& command_line) {
  request_->command_line = command_line;
  command_ = app.add_subcommand(
      "try",
      "Run YOUR program under each malloc and knob variant in shuffled rounds, each run's malloc "
      "proven live: CPU time, wall time and faults from wait4, the program's own peak RSS. Usage: "
      "try [options] -- "
      "PROG ARGS");
  try_request& r = *request_;
  command_
      ->add_option("--malloc", r.mallocs,
                   fmt::format("Comma-separated mallocs (default: {}, those installed)",
                               fmt::join(mallocs::try_default_mallocs(), ",")))
      ->expected(1);
  command_->add_option("--variants", r.variants,
                       "Knob variants, MALLOC:KNOB=VALUE[+KNOB=VALUE],...; " + knob_summary());
  command_
      ->add_option("--rounds", r.rounds,
                   "A fixed number of rounds, each running every combination once (2-1000); "
                   "default: stop adaptively (--budget)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1000}));
  command_->add_option(
      "--budget", r.budget,
      "Wall time of all rounds, e.g. 5m, 90s (default 5m; the --min-rounds run whatever it says): "
      "after --min-rounds, rounds continue "
      "until every combination's CPU ratio to the baseline is decided by the lab's stop rule "
      "(docs/budget.md), the time is spent or --max-rounds ran; 0 = 5 fixed rounds");
  command_
      ->add_option("--min-rounds", r.min_rounds,
                   "Adaptive: rounds before the first look, whatever the budget (4-1000, default "
                   "4: the fewest with which the U test can decide)")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1000}));
  command_
      ->add_option("--max-rounds", r.max_rounds,
                   "Adaptive: at most this many rounds (4-1000, default 40)")
      ->check(CLI::Range(std::size_t{4}, std::size_t{1000}));
  command_
      ->add_option("--timeout", r.timeout_seconds,
                   "Seconds per run; a run over it is killed with its process group and is a "
                   "failed run (default 600)")
      ->check(lab::finite_in_range(0.001, 1e6));
  command_->add_option("--stdin", r.stdin_path, "The program's stdin (default /dev/null)");
  command_->add_option("--cwd", r.working_directory, "The program's working directory");
  command_
      ->add_option("--output", r.output,
                   "discard (default) or check: the program's stdout must be identical in "
                   "every run; a difference is reported as a finding")
      ->check(CLI::IsMember({"discard", "check"}));
  command_->add_option("-o,--out", r.out_directory,
                       "Write results.json, report.md, report.html here (default "
                       "results/try-<UTC time>)");
  command_->add_option("--seed", r.seed, "Seed of the run order (default: random, recorded)")
      ->check(lab::unsigned_64_bit_integer());
  command_->add_flag("--wait", r.wait_for_lock,
                     "Queue behind another lab run measuring on this machine instead of exiting 2");
  command_->add_option("command", r.command, "-- PROG ARGS: the program and its arguments");
}

bool try_command::parsed() const {
  return command_->parsed();
}

int try_command::execute() const {
  try_request r = *request_;
  lab::split_commas(r.mallocs);
  return execute_try(r);
}

int execute_try(const try_request& request, std::string* results_path) {
  try_plan frame_plan = plan_try(request);
  const stopping_plan& stopping = frame_plan.stopping;
  const fs::path directory = writable_directory(request);
  frame_plan.scratch_directory = fs::absolute(directory).string();
  const lab::run_plan plan = make_program_plan(frame_plan);
  // One lab measurement per machine, as `run` and `replay`: a `try` beside them times them both.
  const auto lock = lab::take_machine_lock(request.command_line, request.wait_for_lock);
  lab::install_interrupt_handlers();
  process::periodic_noise_watch noise;
  const run_clock clock{lab::utc_now("%Y-%m-%dT%H:%M:%SZ"), std::chrono::steady_clock::now(),
                        &noise};
  round_looks looks(stopping, frame_plan);
  progress_lines progress(plan, stopping.adaptive);
  const lab::round_records ran = lab::run_rounds(
      plan, [](lab::frame) { return make_program_executor(); }, std::ref(progress),
      std::ref(looks));
  if (::isatty(STDERR_FILENO) != 0) std::cerr << '\n';
  const std::vector<run_row> rows = rows_of(ran.ran, ran.records);
  report_interrupt(ran, rows, looks.stopper());
  const lab::model::document document =
      write_try_directory(directory, results_of(request, plan, ran, looks.stopper(), clock));
  if (results_path != nullptr) *results_path = (directory / "results.json").string();
  std::cout << render_program_console(document.parts.get<lab::program_document_figures>()->program)
            << "results: " << (directory / "results.json").string() << ", "
            << (directory / "report.md").string() << ", " << (directory / "report.html").string()
            << '\n';
  if (ran.interrupted_by != 0) return 128 + ran.interrupted_by;
  const bool any_failed =
      std::any_of(rows.begin(), rows.end(), [](const run_row& row) { return !row.record.ok; });
  return any_failed ? 1 : 0;
}

}  // namespace alloclab::program
