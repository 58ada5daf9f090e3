// Parent side: one cell's simulated cost. The cell's own worker, in its simulation mode (the
// frame's simulation hook gives its arguments), runs three times under the cell's malloc:
//   1. under Callgrind (callgrind_options()): its regions' dumps give the events;
//   2. normally: its regions' page faults and context switches (getrusage, in the worker);
//   3. under `strace -f`: the region's mmap/munmap/mremap/madvise/brk calls.
// Only 1 is required; 2 and 3 fill `left_out` when they work. Never throws for what a worker does.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/simulated.hpp"
#include "mallocs/malloc_table.hpp"

namespace alloclab::lab::simulate {

// Where the tools are; `executable` is the lab binary the workers re-execute.
struct simulation_tools {
  std::string valgrind = "valgrind";  // looked up in PATH when it has no '/'
  std::string strace = "strace";
  std::string executable;
};

// The lab binary of this process and the tools in PATH; `missing` says why the simulation cannot
// run here (Valgrind not in PATH), empty when it can.
struct found_tools {
  simulation_tools tools;
  std::string missing;
  std::string valgrind_version;  // "valgrind-3.19.0"
};
found_tools find_tools();

// Callgrind's options: the cache simulation of one fixed machine (32 KiB 8-way L1s, an 8 MiB
// 16-way last level, 64-byte lines), so the counts do not depend on the host; the start-up runs
// uninstrumented (the worker starts instrumenting at its warm-up); dumps go to `out_file`.N.
std::vector<std::string> callgrind_options(const std::string& out_file);
// The simulated caches in words.
std::string simulated_caches();

// The cell's environment for its Callgrind run: glibc's `rep movsb` threshold raised, added to
// the cell's own GLIBC_TUNABLES (Callgrind counts each byte rep movsb moves as an instruction;
// cell_run.cpp says more).
alloclab::mallocs::worker_env without_rep_movsb(alloclab::mallocs::worker_env env);

struct cell_simulation_request {
  std::vector<std::string> args;  // the worker's arguments after argv[0]
  alloclab::mallocs::worker_env env;
  std::chrono::steady_clock::time_point deadline;  // the simulation is killed at this time
  const std::atomic<bool>* cancel = nullptr;       // or when this turns true
  std::function<void(pid_t)> on_group = nullptr;   // each run's worker_request::on_group
};

model::simulated_cost simulate_cell(const cell_simulation_request& request,
                                    const simulation_tools& tools);

}  // namespace alloclab::lab::simulate
