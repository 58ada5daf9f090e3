// Command-line front end (CLI11): parses arguments and dispatches to run_command.hpp.
#pragma once

namespace alloclab::lab {

// Exit codes: 0 success; 1 measurement failure (checksum mismatch, a failed or refused cell, a named
// --malloc not installed without --skip-missing: results are still written); 2 bad input.
int run_cli(int argc, char** argv);

}  // namespace alloclab::lab
