#include "isolated_cells.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "heap/cell.hpp"
#include "report/results.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

namespace heap = alloclab::heap;
using json = nlohmann::json;

const std::vector<std::string> self_executable{"/proc/self/exe"};

json worker_json(const heap::worker_outcome& w) {
  return {{"exit", w.describe()},
          {"exit_code", w.exited ? json(w.exit_code) : json(nullptr)},
          {"signal", w.term_signal != 0 ? json(w.term_signal) : json(nullptr)},
          {"timed_out", w.timed_out},
          {"wall_seconds", w.wall_seconds},
          {"stderr_tail", w.stderr_tail}};
}

const char* status_text(heap::cell_status s) {
  switch (s) {
    case heap::cell_status::ok:
      return "ok";
    case heap::cell_status::not_installed:
      return "not_installed";
    case heap::cell_status::refused:
      return "refused";
    case heap::cell_status::failed:
      return "failed";
  }
  return "failed";
}

json failed_row(const std::string& strategy, const malloc_choice& malloc,
                const heap::cell_outcome& o) {
  json cell = unmeasured_cell(strategy, malloc.label, status_text(o.status), o.detail);
  cell["worker"] = worker_json(o.worker);
  if (o.document.is_object() && o.document.contains("live_allocator"))
    cell["live_allocator"] = o.document["live_allocator"];
  return cell;
}

// The timing block of a heap cell: per-batch times (one batch = 100 alloc+free pairs plus the
// loop and the page touches), summarised like any lab cell.
json heap_timing(const std::vector<double>& samples, std::size_t per_repetition) {
  cell_measurement m;
  m.samples_ns = samples;
  m.timed_iterations = samples.size();
  for (std::size_t start = 0; start + per_repetition <= samples.size(); start += per_repetition) {
    std::vector<double> rep(samples.begin() + static_cast<std::ptrdiff_t>(start),
                            samples.begin() + static_cast<std::ptrdiff_t>(start + per_repetition));
    std::sort(rep.begin(), rep.end());
    m.repetition_medians_ns.push_back(percentile_sorted(rep, 0.5));
    m.repetition_p99_ns.push_back(percentile_sorted(rep, 0.99));
  }
  return timing_json(m, 1);
}

json fraction_or_null(double part, double whole) {
  return whole > 0 ? json(part / whole) : json(nullptr);
}

json heap_cell(const heap::cell_spec& spec, const malloc_choice& malloc,
               const heap::cell_outcome& o) {
  const json& doc = o.document;
  const json& r = doc.at("result");
  const json& m = r.at("memory");
  json cell = unmeasured_cell(heap_strategy, malloc.label, "ok", "");
  cell["live_allocator"] = doc.at("live_allocator");
  cell["worker"] = worker_json(o.worker);
  cell["worker"]["stderr_tail"] = "";
  cell["timing"] =
      heap_timing(r.at("batch_ns").at("samples").get<std::vector<double>>(), spec.iterations);

  const auto baseline = m.at("baseline_rss_bytes").get<double>();
  const auto peak = m.at("peak_rss_bytes").get<double>();
  const auto after_free = m.at("rss_after_free_bytes").get<double>();
  const auto after_purge = m.at("rss_after_purge_bytes").get<double>();
  const auto minor = m.at("minor_faults").get<double>();
  const double batches = static_cast<double>(spec.iterations * spec.repetitions);
  cell["os"] = {
      {"minor_faults_per_1000_iterations", 1000.0 * minor / batches},
      {"peak_rss_growth_kib", static_cast<std::int64_t>(std::max(0.0, peak - baseline) / 1024)}};
  cell["memory"] = {{"baseline_rss_bytes", m.at("baseline_rss_bytes")},
                    {"peak_rss_bytes", m.at("peak_rss_bytes")},
                    {"peak_was_reset", m.at("peak_was_reset")},
                    {"rss_after_free_bytes", m.at("rss_after_free_bytes")},
                    {"rss_after_purge_bytes", m.at("rss_after_purge_bytes")},
                    {"peak_live_bytes", r.at("peak_live_bytes")},
                    {"fragmentation", m.at("fragmentation")},
                    {"fragmentation_net", m.at("fragmentation_net")},
                    {"retained_after_free",
                     fraction_or_null(std::max(0.0, after_free - baseline), peak - baseline)},
                    {"retained_after_purge",
                     fraction_or_null(std::max(0.0, after_purge - baseline), peak - baseline)},
                    {"purge", m.at("purge")},
                    {"minor_faults", m.at("minor_faults")},
                    {"major_faults", m.at("major_faults")}};
  const json& noop = r.at("noop_batch_ns");
  cell["ns_per_pair"] = {{"mean", r.at("ns_per_pair")},
                         {"per_repetition", r.at("ns_per_pair_reps")},
                         {"pairs_per_repetition", r.at("pairs_per_rep")},
                         {"noop_batch_p50_ns", noop.value("p50", 0.0)},
                         {"total_bytes_per_repetition", r.at("total_bytes_per_rep")}};
  return cell;
}

heap::worker_request request_for(std::vector<std::string> argv, const malloc_choice& malloc,
                                 const isolation_settings& settings) {
  const heap::worker_env env = environment_for(malloc);
  heap::worker_request req;
  req.argv = std::move(argv);
  req.env_set = env.set;
  req.env_unset = env.unset;
  req.timeout = settings.timeout;
  return req;
}

}  // namespace

void inject_test_fault(const std::string& cell_id) {
  const char* fault = std::getenv("ALLOCLAB_TEST_WORKER_FAULT");
  if (fault == nullptr) return;
  const std::string_view spec(fault);
  const std::size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view action = spec.substr(0, colon), target = spec.substr(colon + 1);
  if (target != "*" && target != cell_id) return;
  std::fprintf(stderr, "alloclab worker: test fault '%s' injected into cell %s\n",
               std::string(action).c_str(), cell_id.c_str());
  std::fflush(stderr);
  if (action == "abort") std::abort();
  if (action == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

int run_heap_worker(const char* spec_json) {
  try {
    const heap::cell_spec spec = heap::cell_spec_from_json(json::parse(spec_json));
    std::string label = spec.malloc_name;
    if (spec.malloc_name == heap::custom_malloc_name)
      label += ":" + spec.preload.substr(spec.preload.rfind('/') + 1);
    inject_test_fault(
        fmt::format("{}_{}/{}", heap::to_string(spec.kernel), heap::to_string(spec.dist), label));
  } catch (const std::exception&) {
    // heap_worker_main reports a bad spec itself
  }
  return heap::heap_worker_main(spec_json, std::cout, std::cerr);
}

std::vector<std::string> lab_worker_arguments(const std::string& workload, const run_config& config,
                                              const malloc_choice& malloc, bool allow_debug) {
  std::vector<std::string> argv = self_executable;
  argv.insert(argv.end(),
              {"worker", "--workloads", workload, "--strategies",
               fmt::format("{}", fmt::join(config.strategies, ",")), "--malloc", malloc.argument,
               "--iterations", std::to_string(config.samples_per_repetition), "--repetitions",
               std::to_string(config.repetitions), "--seed", std::to_string(config.seed)});
  if (config.quick) argv.emplace_back("--quick");
  if (allow_debug) argv.emplace_back("--allow-debug");
  return argv;
}

isolated_lab_workload run_lab_workload_isolated(const std::string& workload,
                                                const run_config& config,
                                                const malloc_choice& malloc,
                                                const isolation_settings& settings) {
  isolated_lab_workload out;
  if (!malloc.missing.empty()) {
    for (const auto& s : config.strategies)
      out.cells.push_back(unmeasured_cell(s, malloc.label, "not_installed", malloc.missing));
    return out;
  }
  settings.progress(fmt::format("{} under {} (isolated worker)", workload, malloc.label));
  const heap::cell_outcome o = heap::run_measuring_worker(request_for(
      lab_worker_arguments(workload, config, malloc, settings.allow_debug), malloc, settings));
  if (o.status != heap::cell_status::ok) {
    for (const auto& s : config.strategies) out.cells.push_back(failed_row(s, malloc, o));
    return out;
  }
  try {
    out.workload = o.document.at("workloads").at(0);
    for (json cell : out.workload.at("cells")) {
      cell["malloc"] = malloc.label;
      cell["live_allocator"] = o.document.at("live_allocator");
      cell["worker"] = worker_json(o.worker);
      cell["worker"]["stderr_tail"] = "";
      out.cells.push_back(std::move(cell));
    }
  } catch (const json::exception& e) {
    heap::cell_outcome bad = o;
    bad.status = heap::cell_status::failed;
    bad.detail = fmt::format("worker printed an unexpected document: {}", e.what());
    out.workload = nullptr;
    out.cells = json::array();
    for (const auto& s : config.strategies) out.cells.push_back(failed_row(s, malloc, bad));
  }
  return out;
}

json run_heap_workload(const heap_workload& workload, const std::vector<malloc_choice>& mallocs,
                       const heap_run_sizes& sizes, const isolation_settings& settings) {
  heap::cell_spec spec;
  spec.kernel = workload.kernel;
  spec.dist = workload.dist;
  spec.iterations = sizes.iterations;
  spec.repetitions = sizes.repetitions;
  spec.seed = sizes.seed;
  spec.keep_samples = true;
  json heap_spec = heap::to_json(spec);
  for (const char* key : {"malloc", "preload", "keep_samples"}) heap_spec.erase(key);

  json cells = json::array();
  std::string checksum;
  for (const malloc_choice& malloc : mallocs) {
    if (!malloc.missing.empty()) {
      cells.push_back(
          unmeasured_cell(heap_strategy, malloc.label, "not_installed", malloc.missing));
      continue;
    }
    spec.malloc_name = malloc.custom() ? heap::custom_malloc_name : malloc.label;
    spec.preload = malloc.preload_path;
    settings.progress(fmt::format("{} under {} (isolated worker)", workload.name, malloc.label));
    std::vector<std::string> argv = self_executable;
    argv.emplace_back(heap_worker_command);
    argv.push_back(heap::to_json(spec).dump());
    const heap::cell_outcome o =
        heap::run_measuring_worker(request_for(std::move(argv), malloc, settings));
    if (o.status != heap::cell_status::ok) {
      cells.push_back(failed_row(heap_strategy, malloc, o));
      continue;
    }
    try {
      json cell = heap_cell(spec, malloc, o);
      const std::string sum =
          fmt::format("{:#018x}", o.document.at("result").at("checksum").get<std::uint64_t>());
      if (checksum.empty()) checksum = sum;
      if (sum != checksum) {  // same work or no number
        heap::cell_outcome bad = o;
        bad.status = heap::cell_status::failed;
        bad.detail = fmt::format("checksum mismatch: built {} where the first allocator built {}",
                                 sum, checksum);
        cell = failed_row(heap_strategy, malloc, bad);
      }
      cells.push_back(std::move(cell));
    } catch (const json::exception& e) {
      heap::cell_outcome bad = o;
      bad.status = heap::cell_status::failed;
      bad.detail = fmt::format("worker printed an unexpected document: {}", e.what());
      cells.push_back(failed_row(heap_strategy, malloc, bad));
    }
  }
  json entry = {
      {"name", workload.name},
      {"description", workload.description},
      {"kind", "heap"},
      {"checksum", checksum},
      {"batch_size", 1},
      {"batched", false},
      {"footprint", nullptr},
      {"heap_spec", heap_spec},
      {"baseline",
       {{"strategy", heap_strategy}, {"malloc", mallocs.empty() ? "" : mallocs.front().label}}},
      {"cells", cells}};
  add_comparisons(entry, test_has_power(sizes.repetitions));
  return entry;
}

}  // namespace alloclab::lab
