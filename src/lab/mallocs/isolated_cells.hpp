// Cells measured in isolated child workers: lab workloads under a malloc the lab process cannot
// run under (another allocator, a glibc tuning variant, a custom library), and every heap-study
// cell (one worker each: VmHWM is process-wide). Whatever a worker does — crash, hang, refuse to
// prove its allocator, print garbage — becomes a row with a status and a reason; nothing throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heap/worker.hpp"
#include "mallocs/heap_workloads.hpp"
#include "mallocs/malloc_axis.hpp"
#include "measure/measurement.hpp"

namespace alloclab::lab {

// argv[1] of a heap-study worker (argv[2] is the cell spec JSON); dispatched in main() before
// any argument parsing.
inline constexpr const char* heap_worker_command = "__heap-worker";

// The heap-study worker: test fault hook, then alloclab::heap::heap_worker_main.
int run_heap_worker(const char* spec_json);

struct isolation_settings {
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // per worker (--cell-timeout)
  bool allow_debug = false;
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

// Test hook, called by workers before they measure: ALLOCLAB_TEST_WORKER_FAULT=<action>:<cell>
// with <action> abort or hang and <cell> "<workload>/<malloc label>" (or "*" for every cell).
void inject_test_fault(const std::string& cell_id);

// The argument vector of `alloclab worker` for one lab workload under one malloc.
std::vector<std::string> lab_worker_arguments(const std::string& workload, const run_config& config,
                                              const malloc_choice& malloc, bool allow_debug);

struct isolated_lab_workload {
  nlohmann::json workload;  // the worker's workload entry (null when the worker gave none)
  nlohmann::json cells = nlohmann::json::array();  // one per strategy, labelled with the malloc
};

// One worker measures every strategy of `workload` under `malloc` (not installed: rows say so).
isolated_lab_workload run_lab_workload_isolated(const std::string& workload,
                                                const run_config& config,
                                                const malloc_choice& malloc,
                                                const isolation_settings& settings);

struct heap_run_sizes {
  std::size_t iterations = heap_default_iterations;  // batches of 100 per repetition
  std::size_t repetitions = heap_default_repetitions;
  std::uint64_t seed = 42;
};

// A heap-study workload's results entry: one cell per malloc, each from its own worker.
nlohmann::json run_heap_workload(const heap_workload& workload,
                                 const std::vector<malloc_choice>& mallocs,
                                 const heap_run_sizes& sizes, const isolation_settings& settings);

}  // namespace alloclab::lab
