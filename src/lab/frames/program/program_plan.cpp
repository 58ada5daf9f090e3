#include "frames/program/program_plan.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frames/program/figures.hpp"
#include "frames/program/stopping.hpp"
#include "frames/program/try_command.hpp"
#include "alloclab/detail/linux_files.hpp"
#include "io/usage_error.hpp"
#include "mallocs/malloc_table.hpp"
#include "plan/budget.hpp"
#include "plan/malloc_missing.hpp"
#include "process/descendants.hpp"
#include "schedule/executor.hpp"

namespace alloclab::program {
namespace {

using lab::usage_error;

// The program must exist before any run: a missing one would be N failed runs.
void check_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) != 0)
      throw usage_error("try: '" + program + "' is not an executable file");
    return;
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path == nullptr ? "" : path;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  throw usage_error("try: program '" + program + "' not found in PATH");
}

constexpr std::size_t default_fixed_rounds = 5;
constexpr const char* default_budget = "5m";

// The request's own terms, before any stage reads them: a program that exists, --rounds or
// --budget.
void check_request(const try_request& r) {
  if (r.command.empty())
    throw usage_error("try: no program given; usage: alloclab try [options] -- PROG ARGS");
  check_program(r.command.front());
  if (r.rounds > 0 && r.budget)
    throw usage_error(
        "try: --rounds and --budget exclude each other (--rounds: a fixed number "
        "of rounds; --budget: stop when decided or when the time is spent)");
}

// What the request names, each read once by the stage that owns it, before the frame plans:
// when the rounds stop (--budget read by plan/, the stop plan schedule/'s), the mallocs (known to
// the registry; plan/ says whether one is installed: named ones must be, the default list keeps
// those that are), the knob variants (mallocs/knobs) and the program's --stdin and --cwd (a path
// the file system cannot look at is not one). Throws usage_error for a term refused.
struct request_terms {
  stopping_plan stopping;
  std::vector<std::string> mallocs;
  std::vector<variant> variants;
};

request_terms terms_of(const try_request& r) {
  const double seconds = r.rounds > 0 ? 0.0 : lab::parse_budget(r.budget.value_or(default_budget));
  const bool defaulted = r.mallocs.empty();
  std::vector<const mallocs::malloc_entry*> entries;
  for (const std::string& name : defaulted ? mallocs::try_default_mallocs() : r.mallocs) {
    entries.push_back(mallocs::find_malloc(name));
    if (entries.back() == nullptr)
      throw usage_error(fmt::format("try: unknown --malloc '{}'; valid: {}", name,
                                    fmt::join(mallocs::malloc_names(), ", ")));
  }
  if (seconds > 0 && r.min_rounds > r.max_rounds)
    throw usage_error("try: --min-rounds is above --max-rounds");
  request_terms terms;
  terms.stopping = seconds > 0 ? adaptive_stopping(r.min_rounds, r.max_rounds, seconds)
                               : fixed_stopping(r.rounds > 0 ? r.rounds : default_fixed_rounds);
  for (const mallocs::malloc_entry* e : entries) {
    const std::string missing = lab::malloc_missing_reason(*e);
    if (!missing.empty() && !defaulted) throw usage_error("try: " + missing);
    const std::string name(e->name);
    if (missing.empty() &&
        std::find(terms.mallocs.begin(), terms.mallocs.end(), name) == terms.mallocs.end())
      terms.mallocs.push_back(name);
  }
  try {
    if (!r.variants.empty()) terms.variants = parse_variants(r.variants);
  } catch (const variant_error& e) {
    throw usage_error(std::string("try: ") + e.what());
  }
  if (!r.stdin_path.empty() &&
      (::access(r.stdin_path.c_str(), R_OK) != 0 || detail::is_directory(r.stdin_path)))
    throw usage_error("try: --stdin '" + r.stdin_path + "' is not a readable file");
  if (!r.working_directory.empty() && !detail::is_directory(r.working_directory))
    throw usage_error("try: --cwd '" + r.working_directory + "' is not a directory");
  return terms;
}

// Each malloc with its defaults, then each variant, whose malloc must be among them.
std::vector<variant> combinations_of(const std::vector<std::string>& mallocs,
                                     std::vector<variant> variants) {
  std::vector<variant> combinations;
  for (const std::string& m : mallocs) combinations.push_back({m, {}});
  for (variant& v : variants) {
    if (std::find(mallocs.begin(), mallocs.end(), v.malloc) == mallocs.end())
      throw usage_error("try: --variants '" + v.label() + "' names " + v.malloc +
                        ", which --malloc does not include");
    combinations.push_back(std::move(v));
  }
  return combinations;
}

try_plan plan_of(const try_request& r, request_terms terms) {
  try_plan plan;
  plan.setup.argv = r.command;
  // The program runs in --cwd; a relative stdin is opened before the chdir, from here.
  plan.setup.stdin_path = r.stdin_path;
  plan.setup.working_directory = r.working_directory;
  plan.setup.environment = r.environment;
  plan.setup.timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(r.timeout_seconds * 1000));
  plan.combinations = combinations_of(terms.mallocs, std::move(terms.variants));
  plan.setup.probe_path = default_probe_path();
  if (plan.setup.probe_path.empty())
    throw usage_error(
        "try: the liveness probe liballoclab_program_probe.so is neither next to the "
        "alloclab binary nor in ../lib/alloclab beside it (build the alloclab_cli target, or "
        "install with cmake --install)");
  plan.rounds = terms.stopping.max_rounds;
  plan.stopping = terms.stopping;
  plan.check_output = r.output == "check";
  plan.seed = r.seed != 0 ? r.seed : std::random_device{}() | 1u;
  return plan;
}

lab::malloc_choice choice_of(const variant& v) {
  lab::malloc_choice m;
  m.label = v.malloc;
  m.argument = v.malloc;
  m.entry = mallocs::find_malloc(v.malloc);
  m.knobs = v.settings;
  return m;
}

class program_executor final : public lab::executor {
 public:
  // A program's daemonized descendants become this process's children, and end with its run.
  void prepare(const lab::run_plan&, const lab::progress_note&) override {
    process::adopt_orphaned_descendants();
  }

  lab::measurement_record execute(const lab::run_plan& plan, const lab::task& t) override {
    const try_plan& part = program_part(plan);
    const variant& combination = part.combinations.at(t.cell);
    run_record run =
        run_once(part.setup, combination, part.scratch_directory + "/liveness-proof.txt");
    process::end_leftover_children();
    return record_of(combination, t, std::move(run));
  }

  nlohmann::json run_facts() const override { return nlohmann::json::object(); }
};

}  // namespace

try_plan plan_try(const try_request& request) {
  check_request(request);
  return plan_of(request, terms_of(request));
}

lab::run_plan make_program_plan(const try_plan& frame_plan) {
  lab::run_plan plan;
  plan.frames = {lab::frame::program};
  plan.repetitions[lab::frame::program] = frame_plan.rounds;
  plan.cell_timeout = frame_plan.setup.timeout;
  plan.sizes.samples_per_repetition = 1;
  plan.sizes.repetitions = plan.sizes.processes = frame_plan.rounds;
  plan.sizes.counted_iterations = 1;
  plan.sizes.seed = frame_plan.seed;
  for (const variant& v : frame_plan.combinations) {
    lab::cell_spec c;
    c.workload = program_frame_name;
    c.strategy = v.label();
    c.malloc = choice_of(v);
    c.frame = lab::frame::program;
    if (v.settings.empty()) plan.mallocs.push_back(c.malloc);
    plan.cells.push_back(std::move(c));
  }
  const std::vector<std::size_t> runs_per_cell(plan.cells.size(), frame_plan.rounds);
  plan.schedule = lab::interleaved_schedule(runs_per_cell, frame_plan.rounds, frame_plan.seed);
  plan.frame_sizes.put(program_frame_name, frame_plan);
  return plan;
}

lab::measurement_record record_of(const variant& combination, const lab::task& t, run_record run) {
  lab::measurement_record r;
  r.frame = program_frame_name;
  r.workload = program_frame_name;
  r.strategy = combination.label();
  r.malloc = combination.malloc;
  r.part = t.part;
  r.status = run.ok ? "ok" : "failed";
  r.reason = run.reason;
  r.worker = {{"exit_code", run.exit_code}, {"wall_seconds", run.figures.wall_seconds}};
  r.figures = lab::frame_figures(std::move(run));
  return r;
}

const try_plan& program_part(const lab::run_plan& plan) {
  return plan.frame_sizes.get<try_plan>(program_frame_name);
}

std::unique_ptr<lab::executor> make_program_executor() {
  return std::make_unique<program_executor>();
}

std::vector<run_row> rows_of(const std::vector<lab::task>& ran,
                             const std::vector<lab::measurement_record>& records) {
  std::vector<run_row> rows;
  std::map<std::size_t, std::size_t> placed;  // runs so far of each round
  for (std::size_t i = 0; i < ran.size() && i < records.size(); ++i) {
    const run_record* run = records[i].figures.get<run_record>();
    if (run == nullptr) continue;
    rows.push_back({ran[i].part, placed[ran[i].part]++, ran[i].cell, *run});
  }
  return rows;
}

void to_json(nlohmann::json& j, const run_record& r) {
  j = lab::model::write_json(r);
}

// A record that is not one throws nlohmann's exception, as the rest of the record does.
void from_json(const nlohmann::json& j, run_record& r) {
  try {
    r = lab::model::read_json<run_record>(j, "/figures");
  } catch (const lab::model::model_error& e) {
    throw nlohmann::json::other_error::create(501, e.what(), &j);
  }
}

std::vector<lab::figure_readings> stop_readings_of(const run_record& r) {
  if (!r.ok) return {};
  return {{{stop_figure, {r.figures.cpu_seconds}}}};
}

lab::sample_count timed_samples_of(const run_record&) {
  return {1, 1};
}

}  // namespace alloclab::program
