// The heap frame's options of `alloclab run` (main/cli.cpp registers them).
#pragma once

#include <CLI/CLI.hpp>

#include "plan/request.hpp"

namespace alloclab::lab {

inline void add_heap_run_options(CLI::App& run, run_request& request) {
  run.add_option("--retention-horizon", request.retention_horizon_seconds,
                 "Heap frame: seconds retention is watched after the last free, idle and under "
                 "light allocation (default 30 in the default plan, else 0: not watched)");
}

}  // namespace alloclab::lab
