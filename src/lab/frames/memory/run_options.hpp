// The memory frame's options of `alloclab run` (main/cli.cpp registers them).
#pragma once

#include <CLI/CLI.hpp>

#include "plan/request.hpp"

namespace alloclab::lab {

inline void add_memory_run_options(CLI::App& run, run_request& request) {
  run.add_option("--memory-budget", request.memory_budget,
                 "Memory frame: the budget_bursts workload's budget in bytes (K/M/G suffixes); "
                 "default: the cgroup's limit when one is set, else 256M (--quick 64M)");
  run.add_option("--huge-table-bytes", request.huge_table_bytes,
                 "Memory frame: the huge_table workload's table size (default 256M, --quick 32M)");
}

}  // namespace alloclab::lab
