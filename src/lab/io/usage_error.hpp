// Bad input from the user (arguments, files): exit code 2 and one line on stderr.
#pragma once

#include <stdexcept>

namespace alloclab::lab {

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace alloclab::lab
