// Whether a text (a file read whole, a program's output) contains a part.
#pragma once

#include <string>

namespace alloclab::testing {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace alloclab::testing
