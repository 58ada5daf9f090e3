// Command-line front end (CLI11): parses arguments and dispatches to run_command.hpp.
#pragma once

#include <string>
#include <vector>

namespace alloclab::lab {

// Exit codes: 0 success; 1 measurement failure (checksum mismatch, a failed or refused cell, a named
// --malloc not installed without --skip-missing: results are still written); 2 bad input.
int run_cli(int argc, char** argv);

// The whole binary: a worker entry point when argv names one (the lab re-executes itself as
// "/proc/self/exe __<kind>-worker <spec>"), else run_cli. main() is only this call, so a test
// binary can install hooks (process/hooks.hpp) and then behave as `alloclab`.
int alloclab_main(int argc, char** argv);

}  // namespace alloclab::lab
