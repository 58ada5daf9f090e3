// Output that could not be written: exit code 1 and one line on stderr.
#pragma once

#include <stdexcept>
#include <string>

namespace alloclab::lab {

// A file or stream that could not be written: exit 1, one line.
class output_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `text` to stdout and flushes; a failed write (e.g. /dev/full) throws output_error.
void print_or_throw(const std::string& text);

}  // namespace alloclab::lab
