// The serve frame's options of `alloclab run` (main/cli.cpp registers them).
#pragma once

#include <CLI/CLI.hpp>

#include "plan/request.hpp"

namespace alloclab::lab {

inline void add_serve_run_options(CLI::App& run, run_request& request) {
  run.add_option("--serve-duration", request.serve_duration_seconds,
                 "serve frame: seconds of each closed-loop load generator (hey, wrk) per server "
                 "(default 4, --quick 1; seed 004 used 50)");
}

}  // namespace alloclab::lab
