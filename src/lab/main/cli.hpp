// Command-line front end (CLI11): parses arguments and dispatches to run_command.hpp.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace alloclab::lab {

struct run_request;
struct frame_planner;

// Registers on `run` the own options of each row of `rows` (its add_run_options) that --help
// lists after the shared option `after`, one of the last of `run`'s option groups (--repetitions,
// --repetition-time, --cell-timeout, --shard-costs); nullptr: the rows that name none of them,
// listed last. Each binds to its frame's slot of request.frame_options; its frame validates
// them when it resolves its sizes (a bad value: usage_error, exit 2).
void add_frame_run_options(CLI::App& run, run_request& request, const char* after,
                           const std::vector<frame_planner>& rows);

// Exit codes: 0 success; 1 measurement failure (checksum mismatch, a failed or refused cell, a named
// --malloc not installed without --skip-missing: results are still written); 2 bad input.
int run_cli(int argc, char** argv);

// The whole binary: a worker entry point when argv names one (the lab re-executes itself as
// "/proc/self/exe __<kind>-worker <spec>"), else run_cli. main() is only this call, so a test
// binary can install hooks (process/hooks.hpp) and then behave as `alloclab`.
int alloclab_main(int argc, char** argv);

}  // namespace alloclab::lab
