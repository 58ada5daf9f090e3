// The lab's commands, independent of argument parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/measurement.hpp"

namespace alloclab::lab {

// Bad input from the user: exit code 2 and one line on stderr.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct run_request {
  std::vector<std::string> workloads;   // empty: all
  std::vector<std::string> strategies;  // empty: all
  std::optional<std::size_t> iterations;
  std::optional<std::size_t> repetitions;
  std::uint64_t seed = 42;
  std::string out = "results";
  bool quick = false;
  bool allow_debug = false;
  std::vector<std::string> mallocs;  // --malloc: registry names, "all", library paths; empty: glibc
  bool skip_missing = false;         // a named malloc that is not installed does not fail the run
  std::optional<double> cell_timeout_seconds;  // per isolated worker
  std::optional<std::size_t> processes;        // --processes: repetitions spread over processes
  std::string command_line;
};

// Suite sizes. Default: <= 5 minutes on 2 cores; quick: <= 30 s.
inline constexpr std::size_t default_samples = 2000;
inline constexpr std::size_t default_repetitions = 15;
inline constexpr std::size_t quick_samples = 200;
inline constexpr std::size_t quick_repetitions = 7;
// Processes the repetitions are spread over (address layout and heap history differ between
// processes; repetitions in one process cannot show that variance).
inline constexpr std::size_t default_processes = 3;
inline constexpr std::size_t quick_processes = 2;

// Default wall-clock limit of one isolated worker (--cell-timeout).
inline constexpr double default_cell_timeout_seconds = 600;

// Validates names and fills defaults for the lab (in-process strategy) workloads; throws usage_error.
// Heap-study workload names are accepted and left out (see split_workloads).
run_config resolve_config(const run_request& request);

// --workloads split into lab workloads (registry order) and heap-study workloads ("fifo",
// "lifo", "xthread" name a whole family). Empty request: every lab workload, no heap workload.
struct workload_selection {
  std::vector<std::string> lab;
  std::vector<std::string> heap;
};
workload_selection split_workloads(const std::vector<std::string>& requested);

int execute_run(const run_request& request);
// Hidden: measures one workload x strategy cell and prints its results JSON on stdout,
// so a parent process can run cells in isolated children (e.g. under LD_PRELOAD).
int execute_worker(const run_request& request);
int execute_list();
int execute_report(const std::string& results_path, const std::string& output_path);
int execute_validate(const std::string& results_path);

}  // namespace alloclab::lab
