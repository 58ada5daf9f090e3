// The one way the lab writes a count of things: "1 thread", "2 threads", "0 workloads".
// Header-only: the recorder's front (alloclab_trace) uses it too.
//
// Example:
//   counted(1, "thread");                // "1 thread"
//   counted(3, "process", "processes");  // "3 processes"
//   plural(2, "look");                   // "looks"
#pragma once

#include <cstdint>
#include <string>

namespace alloclab::lab {

// `one` for a count of 1, else `many` ("" means `one` + "s").
inline std::string plural(std::uint64_t count, const std::string& one,
                          const std::string& many = "") {
  if (count == 1) return one;
  return many.empty() ? one + "s" : many;
}

// The count and its noun: "1 thread", "2 threads".
inline std::string counted(std::uint64_t count, const std::string& one,
                           const std::string& many = "") {
  return std::to_string(count) + " " + plural(count, one, many);
}

}  // namespace alloclab::lab
