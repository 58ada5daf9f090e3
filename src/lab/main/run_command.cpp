#include "run_command.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "heap/cell.hpp"
#include "mallocs/heap_workloads.hpp"
#include "mallocs/isolated_cells.hpp"
#include "mallocs/malloc_axis.hpp"
#include "measure/build_guard.hpp"
#include "measure/runner.hpp"
#include "measure/split_run.hpp"
#include "report/atomic_write.hpp"
#include "report/claims.hpp"
#include "report/markdown.hpp"
#include "report/results.hpp"
#include "report/schema_check.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string join_names(const std::vector<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

template <class Registry>
std::vector<std::string> all_names(const Registry& registry) {
  std::vector<std::string> names;
  for (const auto& entry : registry) names.push_back(entry.name);
  return names;
}

// Requested names in registry order; an unknown one is a usage error listing the valid ones.
template <class Registry>
std::vector<std::string> select(const std::vector<std::string>& requested, const Registry& registry,
                                const char* kind, const char* kinds) {
  const std::vector<std::string> valid = all_names(registry);
  if (requested.empty()) return valid;
  for (const auto& name : requested)
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      throw usage_error(
          fmt::format("unknown {} '{}'; valid {}: {}", kind, name, kinds, join_names(valid)));
  std::vector<std::string> chosen;
  for (const auto& name : valid)
    if (std::find(requested.begin(), requested.end(), name) != requested.end())
      chosen.push_back(name);
  return chosen;
}

std::string utc_now(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, pattern, &utc);
  return text;
}

// results/<UTC timestamp>, with a suffix if a run in the same second already took the name.
fs::path fresh_run_directory(const fs::path& root) {
  const std::string stamp = utc_now("%Y%m%dT%H%M%SZ");
  fs::path candidate = root / stamp;
  for (int n = 2; fs::exists(candidate); ++n) candidate = root / fmt::format("{}-{}", stamp, n);
  return candidate;
}

// Progress on stderr: one rewritten line on a terminal, plain lines otherwise.
progress_callback make_progress_printer() {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  return [tty](const progress_event& e) {
    const std::string line =
        e.repetition == 0
            ? fmt::format("[{}] {}", e.repetitions == 0 ? "worker" : "prepare", e.what)
            : fmt::format("[rep {}/{}] {} ({}/{} cells)", e.repetition, e.repetitions, e.what,
                          e.cells_done, e.cells_total);
    if (tty)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << '\n';
  };
}

void end_progress_line() {
  if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
}

// Refuses an unoptimised build unless --allow-debug; returns whether the output is stamped DEBUG.
bool check_build_or_refuse(bool allow_debug) {
  const build_facts facts = current_build();
  switch (judge_build(facts, allow_debug)) {
    case build_verdict::publish:
      return false;
    case build_verdict::refuse:
      throw usage_error(
          fmt::format("this binary is not benchmark-ready ({}, build type {}); rebuild with "
                      "`cmake --preset release` or pass --allow-debug to get DEBUG-stamped output",
                      facts.describe(), facts.build_type));
    case build_verdict::stamp_debug:
      std::cerr << "alloclab: WARNING: DEBUG build (" << facts.describe()
                << "); every output is stamped DEBUG\n";
      return true;
  }
  return true;
}

// Everything `run` will do, validated before anything is measured.
struct run_plan {
  run_config config;  // lab workloads x strategies (in-process part and worker part)
  std::vector<std::string> heap_workloads;
  std::vector<malloc_choice> mallocs;
  heap_run_sizes heap_sizes;
  std::chrono::milliseconds timeout{};
  bool skip_missing = false;
};

run_plan resolve_plan(const run_request& request) {
  run_plan plan;
  plan.config = resolve_config(request);
  plan.heap_workloads = split_workloads(request.workloads).heap;
  plan.mallocs = resolve_mallocs(request.mallocs, alloclab::build::sanitized);
  if (alloclab::build::sanitized && !plan.heap_workloads.empty())
    throw usage_error(
        "this is a sanitizer build: AddressSanitizer owns malloc, so the heap-study workloads ("
        "fifo_*, lifo_*, xthread_*) cannot measure it; use a release build");
  plan.heap_sizes.iterations =
      request.iterations.value_or(request.quick ? heap_quick_iterations : heap_default_iterations);
  plan.heap_sizes.repetitions = request.repetitions.value_or(
      request.quick ? heap_quick_repetitions : heap_default_repetitions);
  plan.heap_sizes.seed = request.seed;
  plan.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(
      1000 * request.cell_timeout_seconds.value_or(default_cell_timeout_seconds)));
  plan.skip_missing = request.skip_missing;
  if (!plan.heap_workloads.empty() && !request.strategies.empty())
    std::cerr << "alloclab: note: heap-study workloads take no in-process strategy (they run with "
                 "strategy '"
              << heap_strategy << "' only); --strategies applies to the lab workloads\n";
  return plan;
}

// The lab process must itself run on glibc to label its in-process cells "glibc".
json prove_parent_is_glibc(const malloc_choice& glibc) {
  const alloclab::heap::live_allocator live = prove_choice(glibc);
  if (!live.ok && !alloclab::build::sanitized)
    throw usage_error(
        fmt::format("the lab process itself does not run on glibc malloc ({}); unset LD_PRELOAD "
                    "and use --malloc to measure other allocators",
                    live.detail));
  return alloclab::heap::to_json(live);
}

std::string cell_key(const json& cell) {
  return cell.at("strategy").get<std::string>() + "@" +
         cell.value("malloc", std::string(native_malloc));
}

// Lab workload entries: the in-process (plain glibc) cells, then each other malloc's cells from
// its isolated worker, malloc by malloc.
void add_isolated_lab_cells(json& results, const run_plan& plan,
                            const isolation_settings& settings) {
  json& workloads = results["workloads"];
  json merged = json::array();
  for (const std::string& name : plan.config.workloads) {
    json entry = nullptr;
    for (const auto& w : workloads)
      if (w.at("name") == name) entry = w;
    for (const malloc_choice& m : plan.mallocs) {
      if (m.plain_glibc()) continue;
      isolated_lab_workload got = run_lab_workload_isolated(name, plan.config, m, settings);
      if (entry
              .is_null()) {  // no in-process cells: the first worker's entry describes the workload
        if (!got.workload.is_null()) {
          entry = got.workload;
        } else {
          const workload_entry* registered = find_workload(name);
          entry = {{"name", name},         {"description", registered->description},
                   {"kind", "lab"},        {"checksum", ""},
                   {"batch_size", 1},      {"batched", false},
                   {"footprint", nullptr}, {"heap_spec", nullptr}};
        }
        entry["cells"] = json::array();
      }
      const std::string expected = entry.at("checksum");
      const bool mismatch = !got.workload.is_null() && !expected.empty() &&
                            got.workload.at("checksum").get<std::string>() != expected;
      if (expected.empty() && !got.workload.is_null())
        entry["checksum"] = got.workload.at("checksum");
      for (json& cell : got.cells) {
        if (mismatch && cell.at("status") == "ok") {  // same work or no number
          const std::string reason = fmt::format("checksum mismatch: built {} where {} built {}",
                                                 got.workload.at("checksum").get<std::string>(),
                                                 plan.mallocs.front().label, expected);
          cell = json(unmeasured_cell(cell.at("strategy"), m.label, "failed", reason));
        }
        entry["cells"].push_back(std::move(cell));
      }
    }
    entry["kind"] = "lab";
    entry["baseline"] = {{"strategy", baseline_strategy}, {"malloc", plan.mallocs.front().label}};
    merged.push_back(std::move(entry));
  }
  workloads = std::move(merged);
}

json measure(const run_plan& plan, const run_request& request, const progress_callback& progress) {
  const auto started = std::chrono::steady_clock::now();
  const bool glibc_in_process = std::any_of(plan.mallocs.begin(), plan.mallocs.end(),
                                            [](const malloc_choice& m) { return m.plain_glibc(); });
  json parent_live = nullptr;
  run_config in_process = plan.config;
  if (glibc_in_process && !in_process.workloads.empty()) {
    parent_live = prove_parent_is_glibc(
        *std::find_if(plan.mallocs.begin(), plan.mallocs.end(),
                      [](const malloc_choice& m) { return m.plain_glibc(); }));
  } else {
    in_process.workloads.clear();
  }
  const run_measurement run = run_split_suite(in_process, progress, plan.timeout);
  json results = build_results(
      run, results_context{current_build(), request.command_line, utc_now("%Y-%m-%dT%H:%M:%SZ")});
  for (auto& w : results["workloads"])
    for (auto& c : w["cells"]) c["live_allocator"] = parent_live;

  isolation_settings settings;
  settings.timeout = plan.timeout;
  settings.allow_debug = request.allow_debug;
  settings.progress = [&progress](const std::string& what) { progress({0, 0, 0, 0, what}); };
  add_isolated_lab_cells(results, plan, settings);
  for (const std::string& name : plan.heap_workloads)
    results["workloads"].push_back(
        run_heap_workload(*find_heap_workload(name), plan.mallocs, plan.heap_sizes, settings));
  const bool power = test_has_power(plan.config.repetitions);
  for (auto& w : results["workloads"])
    if (w.at("kind") == "lab") add_comparisons(w, power);

  json& config = results["config"];
  std::vector<std::string> names = plan.config.workloads;
  names.insert(names.end(), plan.heap_workloads.begin(), plan.heap_workloads.end());
  config["workloads"] = names;
  if (plan.config.workloads.empty()) config["strategies"] = json::array();
  json labels = json::array();
  for (const auto& m : plan.mallocs) labels.push_back(m.label);
  config["mallocs"] = labels;
  config["skip_missing"] = plan.skip_missing;
  config["cell_timeout_seconds"] = static_cast<double>(plan.timeout.count()) / 1000.0;
  config["heap"] = plan.heap_workloads.empty() ? json(nullptr)
                                               : json{{"iterations", plan.heap_sizes.iterations},
                                                      {"repetitions", plan.heap_sizes.repetitions},
                                                      {"strategy", heap_strategy}};
  if (plan.config.workloads.empty() &&
      !plan.heap_workloads.empty()) {  // heap only: its sizes are the run's
    config["samples_per_repetition"] = plan.heap_sizes.iterations;
    config["repetitions"] = plan.heap_sizes.repetitions;
    results["significance"]["smallest_possible_p"] =
        mann_whitney_min_p(plan.heap_sizes.repetitions, plan.heap_sizes.repetitions);
    results["significance"]["enough_repetitions"] = test_has_power(plan.heap_sizes.repetitions);
  }
  results["duration_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  results["warnings"] = collect_warnings(results);
  results["claims"] = judge_claims(results, seed_claims());
  return results;
}

// Exit status of a finished run: 1 when a cell that was asked for has no number for a reason
// other than its strategy not fitting (failed, refused, checksum mismatch), or when a malloc named
// on the command line is not installed and --skip-missing was not given.
int run_exit_status(const json& results, const run_plan& plan) {
  std::vector<std::string> problems;
  for (const auto& w : results.at("workloads"))
    for (const auto& c : w.at("cells")) {
      const std::string status = c.at("status");
      if (status == "failed" || status == "refused")
        problems.push_back(
            fmt::format("{} / {}: {}", w.at("name").get<std::string>(), cell_key(c), status));
    }
  for (const auto& m : plan.mallocs)
    if (!m.missing.empty() && m.named && !plan.skip_missing)
      problems.push_back(m.missing + " (pass --skip-missing to accept)");
  if (problems.empty()) return 0;
  std::cerr << fmt::format("alloclab: {} problem(s); results were written anyway:\n",
                           problems.size());
  for (const auto& p : problems) std::cerr << "  " << p << '\n';
  return 1;
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("cannot read results file '{}'", path));
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw usage_error(fmt::format("'{}' is not valid JSON: {}", path, e.what()));
  }
}

}  // namespace

workload_selection split_workloads(const std::vector<std::string>& requested) {
  workload_selection chosen;
  if (requested.empty()) {
    for (const auto& w : workload_registry()) chosen.lab.push_back(w.name);
    return chosen;
  }
  std::vector<std::string> lab_names, heap_names;
  for (const auto& name : requested) {
    if (find_workload(name) != nullptr) {
      lab_names.push_back(name);
    } else if (find_heap_workload(name) != nullptr) {
      heap_names.push_back(name);
    } else if (auto family = heap_workload_family(name); !family.empty()) {
      heap_names.insert(heap_names.end(), family.begin(), family.end());
    } else {
      std::vector<std::string> valid = all_names(workload_registry());
      for (const auto& h : heap_workload_registry()) valid.push_back(h.name);
      throw usage_error(
          fmt::format("unknown workload '{}'; valid workloads: {} (or a heap family: fifo, lifo, "
                      "xthread)",
                      name, join_names(valid)));
    }
  }
  for (const auto& w : workload_registry())
    if (std::find(lab_names.begin(), lab_names.end(), w.name) != lab_names.end())
      chosen.lab.push_back(w.name);
  for (const auto& h : heap_workload_registry())
    if (std::find(heap_names.begin(), heap_names.end(), h.name) != heap_names.end())
      chosen.heap.push_back(h.name);
  return chosen;
}

run_config resolve_config(const run_request& request) {
  run_config config;
  config.workloads = split_workloads(request.workloads).lab;
  config.strategies = select(request.strategies, strategy_registry(), "strategy", "strategies");
  config.quick = request.quick;
  config.samples_per_repetition =
      request.iterations.value_or(request.quick ? quick_samples : default_samples);
  config.repetitions =
      request.repetitions.value_or(request.quick ? quick_repetitions : default_repetitions);
  config.seed = request.seed;
  config.order_seed = request.seed;
  config.processes =
      request.processes.value_or(request.quick ? quick_processes : default_processes);
  return config;
}

int execute_run(const run_request& request) {
  const run_plan plan = resolve_plan(request);
  const fs::path root = request.out;
  try {
    ensure_writable_directory(root);
  } catch (const std::system_error& e) {
    throw usage_error(fmt::format("--out '{}' is not writable: {}", request.out, e.what()));
  }
  const bool debug = check_build_or_refuse(request.allow_debug);

  const json results = measure(plan, request, make_progress_printer());
  end_progress_line();

  const fs::path directory = fresh_run_directory(root);
  fs::create_directories(directory);
  write_file_atomically(directory / "results.json", results.dump(2) + "\n");
  write_file_atomically(directory / "report.md", render_report(results));
  replace_symlink_atomically(root / "latest", directory.filename());

  std::cout << render_headline(results) << '\n';
  for (const auto& warning : results["warnings"])
    std::cout << "warning: " << warning.get<std::string>() << '\n';
  std::cout << (debug ? "DEBUG report: " : "report: ") << (directory / "report.md").string()
            << '\n';
  return run_exit_status(results, plan);
}

int execute_worker(const run_request& request) {
  run_config config = resolve_config(request);
  if (config.workloads.size() != 1 || !split_workloads(request.workloads).heap.empty())
    throw usage_error("worker measures exactly one --workloads name (a lab workload)");
  const std::vector<malloc_choice> mallocs =
      resolve_mallocs(request.mallocs, alloclab::build::sanitized);
  if (mallocs.size() != 1) throw usage_error("worker measures under exactly one --malloc");
  const malloc_choice& malloc = mallocs.front();
  inject_test_fault(config.workloads.front() + "/" + malloc.label);
  check_build_or_refuse(request.allow_debug);

  const alloclab::heap::live_allocator live = prove_choice(malloc);
  // Under AddressSanitizer malloc is ASan's: plain glibc cells are measured anyway (stamped DEBUG).
  if (!live.ok && !(alloclab::build::sanitized && malloc.plain_glibc())) {
    std::cout << json{{"measured", false}, {"live_allocator", alloclab::heap::to_json(live)}}.dump()
              << '\n';
    std::cerr << "alloclab worker: refusing to measure: " << live.detail << '\n';
    return alloclab::heap::worker_exit_refused;
  }
  config.malloc_label = malloc.label;
  const run_measurement run = run_suite(config, [](const progress_event&) {});
  json results = build_results(
      run, results_context{current_build(), request.command_line, utc_now("%Y-%m-%dT%H:%M:%SZ")});
  results["measured"] = true;
  results["live_allocator"] = alloclab::heap::to_json(live);
  std::cout << results.dump() << '\n';
  return 0;
}

int execute_list() {
  std::cout << "workloads (lab: any in-process strategy x any malloc):\n";
  for (const auto& w : workload_registry())
    std::cout << fmt::format("  {:<26} {}\n", w.name, w.description);
  std::cout << fmt::format(
      "heap-study workloads (malloc-level kernels, one isolated worker per cell; the strategy "
      "axis is n/a: they run with strategy '{}' only; not in the default suite):\n",
      heap_strategy);
  for (const auto& w : heap_workload_registry())
    std::cout << fmt::format("  {:<26} {}\n", w.name, w.description);
  std::cout << "strategies (in-process):\n";
  for (const auto& s : strategy_registry())
    std::cout << fmt::format("  {:<26} {}\n", s.name, s.description);
  std::cout << "mallocs (--malloc; default glibc; 'all' = every one below; or a path to a malloc "
               "library):\n";
  for (const auto& m : alloclab::heap::malloc_registry()) {
    const bool here = alloclab::heap::installed(m);
    std::cout << fmt::format(
        "  {:<26} {}{}\n", m.name, m.description,
        here ? "" : fmt::format(" [not installed: apt install {}]", m.debian_package));
  }
  return 0;
}

// Schema problems of a results file, or a single line when it was written by
// another schema version (its keys would all look wrong).
std::vector<std::string> results_problems(const json& results) {
  const json version = results.value("schema_version", json());
  if (version != results_schema_version)
    return {
        fmt::format("schema_version is {}, this alloclab reads version {} (re-run to regenerate)",
                    version.dump(), results_schema_version)};
  return schema_violations(results, results_schema());
}

int execute_report(const std::string& results_path, const std::string& output_path) {
  json results = read_json_file(results_path);
  if (auto problems = results_problems(results); !problems.empty())
    throw usage_error(
        fmt::format("'{}' does not match the results schema: {}", results_path, problems.front()));
  results["claims"] =
      judge_claims(results, seed_claims());  // re-judged with the current claims file
  const std::string report = render_report(results);
  if (output_path.empty() || output_path == "-")
    std::cout << report;
  else
    write_file_atomically(output_path, report);
  return 0;
}

int execute_validate(const std::string& results_path) {
  constexpr std::size_t shown = 20;
  const json results = read_json_file(results_path);
  const auto problems = results_problems(results);
  for (std::size_t i = 0; i < problems.size() && i < shown; ++i) std::cout << problems[i] << '\n';
  if (problems.size() > shown) std::cout << "... and " << problems.size() - shown << " more\n";
  if (!problems.empty()) {
    std::cerr << fmt::format("alloclab: error: '{}' has {} schema violation(s)\n", results_path,
                             problems.size());
    return 1;
  }
  std::cout << results_path << ": valid (schema_version " << results["schema_version"] << ")\n";
  return 0;
}

}  // namespace alloclab::lab
