#include "frames/program/program_plan.hpp"

#include <map>
#include <utility>

#include "mallocs/malloc_table.hpp"
#include "process/descendants.hpp"
#include "schedule/executor.hpp"

namespace alloclab::program {
namespace {

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

  nlohmann::json run_facts() const override { return nlohmann::json::object(); }
};

}  // namespace

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
  j = {{"ok", r.ok},
       {"reason", r.reason},
       {"exit_code", r.exit_code},
       {"cpu_seconds", r.figures.cpu_seconds()},
       {"wall_seconds", r.figures.wall_seconds},
       {"peak_rss_bytes", r.figures.peak_rss_bytes}};
}

std::vector<lab::figure_readings> stop_readings_of(const run_record& r) {
  if (!r.ok) return {};
  return {{{stop_figure, {r.figures.cpu_seconds()}}}};
}

lab::sample_count timed_samples_of(const run_record&) {
  return {1, 1};
}

}  // namespace alloclab::program
