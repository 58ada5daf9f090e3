#include "io/output.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

namespace alloclab::lab {

void print_or_throw(const std::string& text) {
  std::cout << text << std::flush;
  if (!std::cout)
    throw output_error(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
}

}  // namespace alloclab::lab
