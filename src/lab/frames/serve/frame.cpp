#include "frames/serve/figures.hpp"
#include "frames/serve/frame.hpp"
#include "frames/serve/process_figures.hpp"
#include "frames/serve/run_options.hpp"
#include "workloads/catalogue.hpp"

#include "frames/serve/serve_command.hpp"

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace alloclab::lab {

// Serve frame: every variant (strategy x malloc) of each lab workload; no placement twin (one
// iteration per request is not where the copy cliff shows).
void add_serve_cells(run_plan& plan, const std::vector<malloc_choice>&) {
  for (const auto& w : plan.workloads.lab)
    for (const auto& m : plan.mallocs)
      for (const auto& s : plan.strategies) plan.cells.push_back({w, s, m, frame::serve, false});
}

namespace {

// `alloclab serve` and `alloclab load`, as the frame table hands them to the CLI.
class serve_frame_commands final : public frame_commands {
 public:
  explicit serve_frame_commands(CLI::App& app) : commands_(serve::add_serve_commands(app)) {}
  std::vector<std::string> names() const override { return {"serve", "load"}; }
  bool parsed() const override { return commands_.parsed(); }
  int execute() const override { return commands_.execute(); }

 private:
  serve::serve_commands commands_;
};

std::unique_ptr<frame_commands> add_serve_frame_commands(CLI::App& app, const std::string&) {
  return std::make_unique<serve_frame_commands>(app);
}

}  // namespace

namespace {

// A serve task's expected wall time: per fresh server, its start, the warm-up, hey and wrk for
// --serve-duration each and the three ladder steps of half that (at least 0.5 s), then its stop.
// With --quick (1 s) that is 5 s; measured 4.8-8.1 s on this project's 2-core VM (2026-11-27).
double expected_serve_seconds(const run_plan& plan, const task& t) {
  const double duration = serve_sizes_of(plan).duration_s;
  const double step = std::max(0.5, duration / 2);
  const double server = 1.0 + std::min(1.0, step) + 2 * duration + 3 * step;
  return static_cast<double>(t.repetitions) * server;
}

// --repetitions fresh servers and --serve-duration, else its defaults; a budgeted run runs hey
// alone, shorter.
void resolve_serve_sizes(run_plan& plan, const run_request& r, const host_view&) {
  const bool budgeted = plan.sizes.budget_seconds > 0;
  const serve_run_options& o = r.frame_options.get<serve_run_options>(serve_frame_name);
  serve_plan_sizes s;
  s.repetitions =
      r.repetitions.value_or(r.quick ? quick_serve_repetitions : default_serve_repetitions);
  s.duration_s = o.duration_seconds.value_or(budgeted  ? budget_serve_duration_seconds
                                             : r.quick ? quick_serve_duration_seconds
                                                       : default_serve_duration_seconds);
  if (!std::isfinite(s.duration_s) || s.duration_s < 1 || s.duration_s > 3600)
    throw usage_error(
        fmt::format("--serve-duration {} is not a number of seconds in [1, 3600]", s.duration_s));
  s.hey_only = budgeted;
  plan.frame_sizes.put(serve_frame_name, s);
}

std::size_t serve_repetitions(const run_plan& plan) {
  return serve_sizes_of(plan).repetitions;
}

// The served cells, which the serve section keeps outside the document's workloads, for `merge`
// (merge/frame_figures_reader.hpp).
std::vector<std::pair<std::string, model::cell_head>> served_cells(const model::document& results) {
  std::vector<std::pair<std::string, model::cell_head>> cells;
  const serve_document_figures* part = results.parts.get<serve_document_figures>();
  if (part == nullptr || !part->serve) return cells;
  for (const serve_workload& w : part->serve->workloads)
    for (const serve_cell& c : w.cells) cells.emplace_back(w.name, c.head);
  return cells;
}

}  // namespace

void add_serve_run_options(CLI::App& run, frame_slots& options) {
  run.add_option("--serve-duration",
                 options.slot<serve_run_options>(serve_frame_name).duration_seconds,
                 "serve frame: seconds of each closed-loop load generator (hey, wrk) per server "
                 "(default 4, --quick 1; seed 004 used 50)");
}

frame_module serve_frame() {
  frame_module row;
  row.id = frame::serve;
  row.name = serve_frame_name;
  row.report_position = 50;  // report.md: heap, replay, batch, memory, serve, program
  row.measures = workload_kind::lab;
  row.add_cells = add_serve_cells;
  row.repetitions = serve_repetitions;
  row.resolve_sizes = resolve_serve_sizes;
  row.read_sizes = read_slot_as<serve_plan_sizes>;
  row.add_run_options = add_serve_run_options;
  row.run_options_after = "--cell-timeout";
  row.one_repetition_per_process = true;
  row.make_executor = make_serve_executor;
  row.add_results = add_serve_results;
  row.warnings = serve_warnings;
  row.what_numbers_include = describe_serve_frame;
  row.add_commands = add_serve_frame_commands;
  row.expected_seconds = expected_serve_seconds;
  row.results_parts = {&model::part_codec_of<serve_document_figures>(), nullptr, nullptr, nullptr};
  row.render_section = markdown::serve_section;
  row.workloads = &lab_workload_catalogue();
  row.read_figures = read_figures_as<serve_figures>;
  row.own_cells = served_cells;
  row.budgeted = true;
  row.uses_every_cpu = [](const cell_spec&) { return true; };  // a server and its load generator
  return row;
}

}  // namespace alloclab::lab
