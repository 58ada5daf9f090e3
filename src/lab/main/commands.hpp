// The lab's commands, independent of argument parsing: each runs the pipeline
// plan -> executors -> records -> results builder -> renderers, or a part of it.
#pragma once

#include <string>

#include "plan/request.hpp"

namespace alloclab::lab {

int execute_run(const run_request& request);
int execute_list();
// `html_path`, when given, also gets report.html (render/html.hpp); the Markdown then goes to
// `output_path` only when that was given too.
int execute_report(const std::string& results_path, const std::string& output_path,
                   const std::string& html_path = "");
int execute_validate(const std::string& results_path);

// `alloclab compare A B`: 0, or 1 when `fail_on_regression_percent` (>= 0) is exceeded by a
// significant slowdown. `output_path` ending in .html gets HTML, anything else Markdown.
int execute_compare(const std::string& a_path, const std::string& b_path,
                    const std::string& output_path, double fail_on_regression_percent);

// Writes `text` to stdout and flushes; a failed write (e.g. /dev/full) throws output_error.
void print_or_throw(const std::string& text);

// A file or stream that could not be written: exit 1, one line.
class output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace alloclab::lab
