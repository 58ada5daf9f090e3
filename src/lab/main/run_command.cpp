// `alloclab run`: the whole pipeline.
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "process/interrupt.hpp"
#include "process/noise_gate.hpp"
#include "process/run_lock.hpp"
#include "schedule/budget_run.hpp"
#include "schedule/executor.hpp"
#include "schedule/scheduler.hpp"
#include "main/commands.hpp"
#include "measure/build_guard.hpp"
#include "measure/copy_cliff.hpp"
#include "merge/merge_inputs.hpp"
#include "process/machine_lock.hpp"
#include "merge/shard_file.hpp"
#include "plan/budget_reserve.hpp"
#include "main/frame_registry.hpp"
#include "plan/resolved_run.hpp"
#include "io/atomic_write.hpp"
#include "render/markdown.hpp"
#include "render/run_directory.hpp"
#include "results/results_builder.hpp"
#include "results/results_file.hpp"
#include "simulate/queue.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// The terminal's width in columns, or 0 when stderr is not a terminal that says.
std::size_t terminal_columns() {
  struct winsize size {};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

// Progress on stderr: tasks done / total across every process, with an ETA; one rewritten line
// on a terminal (cut to its width: a wrapped line cannot be rewritten), plain lines otherwise.
schedule_progress_fn make_progress_printer() {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  return [tty](const schedule_progress& p) {
    const std::string eta = p.eta_seconds < 0 ? "" : " ETA " + clock_text(p.eta_seconds);
    const bool preparing = p.done == 0 && p.eta_seconds < 0 && p.what.rfind("calibrating", 0) == 0;
    // A budgeted run does not know its total: it says its round and the budget instead.
    const std::string line =
        preparing      ? fmt::format("[prepare] {}", p.what)
        : p.total == 0 ? fmt::format("[{} cell processes] {}", p.done, p.what)
                       : fmt::format("[{}/{} cell processes{}] {}", p.done, p.total, eta, p.what);
    if (tty)
      std::cerr << "\r\033[K" << fit_to_width(line, terminal_columns()) << std::flush;
    else
      std::cerr << line << '\n';
  };
}

void end_progress_line() {
  if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

// Everything about the output root that can be checked before measuring.
void check_output_root(const fs::path& root) {
  try {
    ensure_writable_directory(root);
  } catch (const std::system_error& e) {
    throw usage_error(
        fmt::format("--out '{}' is not writable: {}", root.string(), e.code().message()));
  }
  const fs::path latest = root / "latest";
  std::error_code ec;
  const fs::file_status existing = fs::symlink_status(latest, ec);
  if (fs::exists(existing) && !fs::is_symlink(existing))
    throw usage_error(fmt::format("'{}' is {}, not the link alloclab maintains; move it away first",
                                  latest.string(),
                                  fs::is_directory(existing) ? "a directory" : "not a symlink"));
}

// What a run checks and holds before it measures: the output root, the build (refused unless
// --allow-debug, else stamped DEBUG) and the machine's one lab run at a time
// (process/run_lock.hpp; busy is bad input, exit 2).
struct run_guard {
  bool debug = false;
  std::unique_ptr<process::run_lock> lock;  // null with ALLOCLAB_LOCK_FILE=none
};

run_guard guard_run(const run_request& request) {
  run_guard guard;
  check_output_root(request.out);
  guard.debug = stamp_debug_or_refuse(request.allow_debug);
  guard.lock = take_machine_lock(request.command_line, request.wait_for_lock);
  return guard;
}

// What makes a finished run exit 1: a cell that was asked for has no number for a reason other
// than its strategy not fitting, or a named malloc is missing without --skip-missing. Every
// frame's cells are read alike (merge/merge_inputs.hpp cells_of); a cell a frame keeps in a part
// of its own is named with that frame's name first.
std::vector<std::string> run_problems(const model::document& results, const run_plan& plan) {
  std::vector<std::string> problems;
  for (const named_cell& c : cells_of(results))
    if (c.head.status == "failed" || c.head.status == "refused")
      problems.push_back(fmt::format("{}{} / {} @ {}: {}",
                                     c.own_part_of.empty() ? "" : c.own_part_of + " ", c.workload,
                                     c.head.strategy, c.head.malloc, c.head.status));
  for (const auto& m : plan.mallocs)
    if (!m.missing.empty() && m.named && !plan.skip_missing)
      problems.push_back(m.missing + " (pass --skip-missing to accept)");
  return problems;
}

// The run's directory under the output root (render/run_directory.hpp), then `latest`.
fs::path write_fresh_run(const fs::path& root, const model::document& results,
                         const leading_file& shard) {
  try {
    return write_run_directory(root, results, shard, run_directory_place::fresh_under_root);
  } catch (const run_directory_error& e) {
    throw output_error(e.what());
  }
}

}  // namespace

std::string fit_to_width(const std::string& line, std::size_t columns) {
  if (columns == 0) return line;
  std::size_t shown = 0, at = 0;
  for (; at < line.size(); ++at) {
    const bool starts_character = (static_cast<unsigned char>(line[at]) & 0xC0) != 0x80;
    if (starts_character && ++shown == columns) break;  // the last column stays free
  }
  return at < line.size() ? line.substr(0, at) : line;
}

int execute_run(const run_request& request) {
  const auto read_costs = [](const std::string& path) {
    return workload_seconds(read_results_model(path));
  };
  resolved_run run =
      resolve_run(request, alloclab::build::sanitized, expected_task_seconds, read_costs);
  const run_guard guard = guard_run(request);  // the lock before the handlers:
  install_interrupt_handlers();  // a Ctrl-C while waiting for the lock just ends the process
  if (run.plan.sizes.budget_seconds > 0)  // once the run is sure to start
    std::cerr << "alloclab: " << budget_line(run.plan.sizes.budget_seconds) << '\n';
  const auto started = std::chrono::steady_clock::now();  // the budget: from holding the lock
  process::periodic_noise_watch noise;

  results_context context{current_build(), request.command_line, utc_now("%Y-%m-%dT%H:%M:%SZ")};
  // The memmove probe (typed figures); without a cliff the placement twin measures nothing new.
  context.placement = settle_placement_twin(run.plan, probe_placement());
  if (run.shard) context.shard = shard_summary(*run.shard, run.whole, run.plan, run.costs);
  const run_plan& plan = run.plan;
  std::optional<simulate::simulation_queue> simulation;  // on the other CPU, beside the timing
  if (const auto limits = simulate::simulation_limits(request, plan, started))
    simulation.emplace(plan, *limits);
  process::pausable_workers* beside = simulation ? &simulation->workers() : nullptr;
  const run_records records =
      plan.sizes.budget_seconds > 0
          ? run_budgeted(run.plan, started, make_frame_executor, make_progress_printer(), beside)
          : run_schedule(plan, make_frame_executor, make_progress_printer(), beside);
  end_progress_line();
  context.noise = noise.finish();
  if (simulation) context.simulation = simulation->finish();
  const model::document results = build_results(plan, records, context);
  leading_file shard;  // a shard's shard.json, written before its results.json
  if (run.shard)
    shard = {shard_file_name,
             to_json(shard_file{*run.shard, run.deal, run.whole, records, context}).dump() + "\n"};
  const std::vector<std::string> problems = run_problems(results, plan);
  const fs::path directory = write_fresh_run(request.out, results, shard);

  std::string summary = render_headline(results);
  for (const std::string& warning : results.warnings) summary += "warning: " + warning + "\n";
  summary += (guard.debug ? "DEBUG report: " : "report: ") + (directory / "report.html").string() +
             " (charts; tables also in report.md)\n";
  print_or_throw(summary);
  if (problems.empty()) return 0;
  std::cerr << fmt::format("alloclab: {} problem(s); results were written anyway:\n",
                           problems.size());
  for (const auto& p : problems) std::cerr << "  " << p << '\n';
  return 1;
}

}  // namespace alloclab::lab
