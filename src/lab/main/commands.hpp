// The lab's commands, independent of argument parsing: each runs the pipeline
// plan -> executors -> records -> results builder -> renderers, or a part of it.
#pragma once

#include <string>

#include "plan/request.hpp"

namespace alloclab::lab {

int execute_run(const run_request& request);
int execute_list();
int execute_report(const std::string& results_path, const std::string& output_path);
int execute_validate(const std::string& results_path);

// Writes `text` to stdout and flushes; a failed write (e.g. /dev/full) throws output_error.
void print_or_throw(const std::string& text);

// A file or stream that could not be written: exit 1, one line.
class output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace alloclab::lab
