#include "main/replay_commands.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "advise/advise.hpp"
#include "advise/knob_trials.hpp"
#include "advise/program_runs.hpp"
#include "advise/real_runs.hpp"
#include "frames/program/program_model.hpp"
#include "frames/program/try_command.hpp"
#include "mallocs/malloc_table.hpp"
#include "main/cli.hpp"
#include "main/commands.hpp"
#include "process/machine_lock.hpp"
#include "cli/option_checks.hpp"
#include "plan/malloc_choice.hpp"
#include "plan/budget.hpp"
#include "plan/plan.hpp"
#include "render/units.hpp"
#include "results/results_file.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"
#include "frames/replay/replay_cap.hpp"
#include "frames/replay/replay_resources.hpp"
#include "frames/replay/run_options.hpp"
#include "trace/trace_facts.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct read_trace {
  std::unique_ptr<trace::trace_file> file;
  trace::trace_summary summary;
};

// A trace that cannot be read is bad input: one line, exit 2.
read_trace open_trace(const std::string& path) {
  try {
    read_trace t;
    t.file = std::make_unique<trace::trace_file>(path);
    t.summary = trace::summarize(*t.file);
    return t;
  } catch (const trace::trace_error& e) {
    throw usage_error(e.what());
  }
}

replay_trace_facts facts_of(const read_trace& t) {
  using k = trace::event_kind;
  replay_trace_facts f;
  f.threads = t.file->threads().size();
  f.monotonic_footprint = t.summary.monotonic_footprint;
  f.duration_us = t.summary.duration_us;
  f.trust = trace::assess_replay(t.summary);
  for (const k kind : {k::memalign, k::posix_memalign, k::aligned_alloc, k::valloc, k::pvalloc})
    f.aligned_allocations += t.summary.by_kind[static_cast<std::size_t>(kind)];
  return f;
}

// The whole replays `request` asks for: (mallocs + variants + resources) x repetitions x 2 (a
// timed replay and one with program work each).
std::size_t whole_replays(const run_request& request) {
  std::size_t cells = request.malloc_variants.size();
  for (const malloc_choice& m : resolve_mallocs(
           request.mallocs.empty() ? std::vector<std::string>{native_malloc} : request.mallocs,
           false))
    cells += m.missing.empty() ? 1 : 0;
  for (const std::string& s : replay_request_of(request).strategies)
    cells += s == "all" ? replay_resources().size() : 1;
  const std::size_t repetitions = request.repetitions.value_or(
      request.quick ? replay_quick_repetitions : replay_default_repetitions);
  return std::max<std::size_t>(cells, 1) * repetitions * 2;
}

// The part of the trace a replay replays: as much as fits the budget `try` would spend
// (default_budget_seconds) at the rate a replayed call costs here now, timed on a prefix of the
// trace under the machine lock (frames/replay/replay_cap.hpp), cut by phases.
void cut_to_budget(const read_trace& t, const run_request& request, replay_trace_facts& facts) {
  replay_cap cap;
  {
    const auto lock = take_machine_lock(request.command_line, request.wait_for_lock);
    cap = cap_replay(t.summary, whole_replays(request), default_budget_seconds,
                     probe_replay_rate(*t.file));
  }
  facts.end_us = cap.cut.end_us;
  facts.replayed = cap.description;
}

// A program frame's results.json (`alloclab try`), read once into the results model.
model::document read_real_runs(const std::string& path) {
  try {
    return read_results_model(path);
  } catch (const usage_error& e) {
    throw usage_error(fmt::format("--real: {}", e.what()));
  }
}

}  // namespace

int print_malloc_env(const char* name) {
  try {
    const malloc_choice m = resolve_mallocs({name}, false).front();
    if (!m.missing.empty()) throw usage_error(m.missing);
    const mallocs::worker_env env = environment_for(m);
    std::string out;
    for (const auto& var : env.unset) out += "-u" + var + "\n";
    for (const auto& [key, value] : env.set) out += key + "=" + value + "\n";
    print_or_throw(out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "alloclab: error: " << e.what() << '\n';
    return 2;
  }
}

int execute_replay(run_request request, const std::string& trace_path) {
  const read_trace t = open_trace(trace_path);
  replay_request& replay = replay_request_of(request);
  replay.trace = fs::weakly_canonical(fs::absolute(trace_path)).string();
  replay.name = fs::path(trace_path).stem().string();
  replay.facts = facts_of(t);
  if (t.summary.allocations == 0)
    throw usage_error(fmt::format("'{}' has no allocations to replay", trace_path));
  cut_to_budget(t, request, replay.facts);
  if (replay.facts.end_us != 0)  // else the results and the report say it
    std::cerr << "alloclab: the replay is " << replay.facts.replayed << '\n';
  // One whole replay per fresh process unless --processes says otherwise.
  if (!request.processes)
    request.processes = request.repetitions.value_or(request.quick ? replay_quick_repetitions
                                                                   : replay_default_repetitions);
  return execute_run(request);
}

std::string advise(const std::string& trace_path, const model::document& results,
                   const advise_options& options) {
  const read_trace t = open_trace(trace_path);
  advised_trace trace{t.file.get(), t.summary, facts_of(t)};
  return alloclab::lab::advise(trace, trace_path, results, options);
}

namespace {

// While advise runs `try` and the replay, their console output goes to stderr: advise's answer
// is the first line on stdout.
class stdout_to_stderr {
 public:
  stdout_to_stderr() : saved_(std::cout.rdbuf(std::cerr.rdbuf())) {}
  ~stdout_to_stderr() { std::cout.rdbuf(saved_); }
  stdout_to_stderr(const stdout_to_stderr&) = delete;
  stdout_to_stderr& operator=(const stdout_to_stderr&) = delete;

 private:
  std::streambuf* saved_;
};

bool holds_replay(const model::document& results) {
  return std::any_of(results.workloads.begin(), results.workloads.end(),
                     [](const model::workload& w) { return w.kind == "trace"; });
}

bool holds_real_runs(const model::document& results) {
  return results.parts.get<program_document_figures>() != nullptr;
}

real_runs_plan real_runs_plan_of(const replay_command_request& q) {
  real_run_options o;
  o.working_directory = q.working_directory;
  o.stdin_path = q.stdin_path;
  o.budget = q.budget;
  o.mallocs = q.run.mallocs;
  o.variants = q.variants;
  o.out_root = q.run.out;
  o.wait_for_lock = q.run.wait_for_lock;
  o.command_line = q.run.command_line;
  const read_trace t = open_trace(q.trace);
  return plan_real_runs(t.file->header(), o);
}

// advise's real runs: `try` on the trace's recorded command (advise/real_runs.hpp). A run
// with no successful baseline leaves the advice to the replay, said in a note.
std::optional<model::document> make_real_runs(const real_runs_plan& plan,
                                              std::vector<std::string>& notes, int& status) {
  std::cerr << "alloclab advise: the real runs: `alloclab try` of the recorded command\n";
  std::string path;
  {
    const stdout_to_stderr quiet;
    status = std::max(status, program::execute_try(plan.request, &path));
  }
  notes.insert(notes.end(), plan.notes.begin(), plan.notes.end());
  model::document real = read_real_runs(path);
  try {
    read_program_runs(program_part(real));
  } catch (const usage_error& e) {
    notes.push_back(
        fmt::format("the real runs are unusable ({}): see {}; the answer is the replay's estimate",
                    e.what(), path));
    return std::nullopt;
  }
  return real;
}

}  // namespace

replay_commands::replay_commands(CLI::App& app, const std::string& command_line) {
  request_->run.command_line = command_line;
  run_request& r = request_->run;
  replay_ = app.add_subcommand(
      "replay",
      "Replay a recorded trace under each malloc (and through in-process resources) in fresh "
      "processes; writes DIR/<UTC time>/ and DIR/latest like `run`");
  advise_ = app.add_subcommand(
      "advise", "Recommend a malloc, glibc tunables, size classes and an arena size for a trace");
  for (CLI::App* c : {replay_, advise_}) {
    c->add_option("trace", request_->trace, "Trace written by `alloclab record`")->required();
    c->add_option("--malloc", r.mallocs,
                  "Comma-separated process-wide mallocs (default: glibc; advise: all), or a path "
                  "to a malloc library (.so)")
        ->expected(1);
    c->add_option("--variants", request_->variants,
                  "Knob variants, each a cell of its own, its knobs read back from the malloc in "
                  "the worker: MALLOC:KNOB=VALUE[+KNOB=VALUE],...; " +
                      mallocs::knob_summary());
    c->add_option("--strategies", replay_request_of(r).strategies,
                  "Comma-separated in-process resources to replay through (replay default: none; "
                  "advise: all that fit): pmr_unsync_pool, pmr_sync_pool, alloclab_multipool, "
                  "alloclab_concurrent_multipool, arena, all")
        ->expected(1);
    c->add_option("--out", r.out, "Results root directory (default: results)");
    c->add_option("--repetitions", r.repetitions,
                  "Whole replays per cell, each in a fresh process (default 5, --quick 3)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
    c->add_option("--processes", r.processes,
                  "Fresh processes per cell (default: one per repetition)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
    c->add_flag("--quick", r.quick, "Fewer replays (a smoke test)");
    c->add_flag("--skip-missing", r.skip_missing,
                "A named --malloc that is not installed is no failure");
    c->add_flag("--allow-debug", r.allow_debug, "Run an unoptimised build; stamped DEBUG");
    c->add_option("--cell-timeout", r.cell_timeout_seconds,
                  "Wall-clock limit in seconds of each replaying process (default 600)");
    c->add_flag("--wait", r.wait_for_lock,
                "Queue behind another lab run measuring on this machine instead of exiting 2");
  }
  advise_->add_option("--results", request_->results,
                      "results.json of an earlier `alloclab replay` of this trace (default: run "
                      "the replay now, under --out); a `try` results file is taken as --real");
  advise_->add_option("--real", request_->real,
                      "results.json of real runs of the same program under each malloc (`alloclab "
                      "try`) instead of running them now");
  advise_->add_flag("--no-real", request_->no_real,
                    "Make no real runs: the advice is the replay's estimate alone");
  advise_->add_option("--budget", request_->budget,
                      "Wall time of the real runs, as `try --budget` (default 5m), e.g. 1m");
  advise_->add_option("--cwd", request_->working_directory,
                      "The real runs' working directory (default: the recorded one)");
  advise_->add_option("--stdin", request_->stdin_path,
                      "The real runs' stdin (default: the recorded file, else /dev/null)");
  advise_
      ->add_option("--noise-floor", request_->noise_floor_percent,
                   fmt::format("Percent under which a difference is noise: no switch is "
                               "recommended for a smaller gain (default {:g})",
                               default_noise_floor_percent))
      ->check(finite_in_range(0.0, 100.0));
}

namespace {

// --results given: a replay's results, or (a `try` results file) the real runs.
void sort_results_file(replay_command_request& q, std::optional<model::document>& replay,
                       std::vector<std::string>& notes) {
  if (q.results.empty()) return;
  model::document given = read_results_model(q.results);
  if (holds_replay(given)) {
    replay = std::move(given);
    return;
  }
  if (!holds_real_runs(given) || !q.real.empty())
    throw usage_error(fmt::format(
        "--results '{}' holds no replay of a trace (run `alloclab replay TRACE`); real runs of "
        "the program (`alloclab try`) go in --real",
        q.results));
  if (q.no_real)
    throw usage_error(fmt::format(
        "--results '{}' holds real runs (`alloclab try`), not a replay of a trace: give it as "
        "--real, without --no-real",
        q.results));
  q.real = q.results;
  notes.push_back("--results held real runs (`alloclab try`), not a replay: taken as --real");
}

// advise's own replay: every malloc and resource that fits, and (without --variants) a small
// sweep of knob settings (advise/knob_trials.hpp) whose best the real runs then try.
model::document run_advised_replay(const replay_command_request& q, int& status) {
  run_request run = q.run;
  if (run.mallocs.empty()) run.mallocs = {"all"};
  if (replay_request_of(run).strategies.empty()) replay_request_of(run).strategies = {"all"};
  if (q.variants.empty())
    run.malloc_variants = parse_knob_variants(default_knob_sweep(run.mallocs));
  run.skip_missing = true;
  const stdout_to_stderr quiet;
  status = std::max(status, execute_replay(run, q.trace));
  return read_results_model((fs::path(run.out) / "latest" / "results.json").string());
}

std::string replay_sweep_note(const replay_command_request& q) {
  if (!q.variants.empty()) return "the replay's knob sweep: --variants " + q.variants;
  const std::string sweep =
      default_knob_sweep(q.run.mallocs.empty() ? std::vector<std::string>{"all"} : q.run.mallocs);
  return "the replay's knob sweep: the registry's tuning variants of the mallocs replayed" +
         (sweep.empty() ? std::string() : " and advise's default settings " + sweep);
}

// The replay runs first (its bad input is refused before the real runs spend their budget), the
// real runs' plan is checked before either.
int execute_advise(replay_command_request q) {
  if (q.no_real && !q.real.empty()) throw usage_error("--no-real and --real exclude each other");
  open_trace(q.trace);  // refuse a bad trace before running anything
  std::vector<std::string> notes;
  std::optional<model::document> replay, real;
  sort_results_file(q, replay, notes);
  const bool run_real = q.real.empty() && !q.no_real;
  std::optional<real_runs_plan> plan =
      run_real ? std::optional(real_runs_plan_of(q)) : std::nullopt;
  int status = 0;
  if (!replay) {
    replay = run_advised_replay(q, status);
    notes.push_back(replay_sweep_note(q));
  }
  advise_options options;
  if (!q.real.empty()) {
    real = read_real_runs(q.real);
    notes.push_back("real runs: read from " + q.real);
  } else if (plan) {
    const std::vector<knob_trial> trials = knobs_to_try(*replay, tried_mallocs(plan->request));
    add_knob_trials(plan->request, trials);
    options.knob_trials_line = knob_trials_text(trials);
    real = make_real_runs(*plan, notes, status);
  }
  options.noise_floor_percent = q.noise_floor_percent;
  options.real = real ? &*real : nullptr;
  if (!real && !q.no_real) options.no_real_because = "the real runs were unusable: see method";
  options.notes = std::move(notes);
  print_or_throw(advise(q.trace, *replay, options));
  return status;
}

}  // namespace

bool replay_commands::parsed() const {
  return replay_->parsed() || advise_->parsed();
}

int replay_commands::execute() const {
  const replay_command_request& q = *request_;
  for (auto* list : {&request_->run.mallocs, &replay_request_of(request_->run).strategies})
    split_commas(*list);
  request_->run.malloc_variants = parse_knob_variants(request_->variants);
  if (replay_->parsed()) return execute_replay(q.run, q.trace);
  return execute_advise(q);
}

}  // namespace alloclab::lab
