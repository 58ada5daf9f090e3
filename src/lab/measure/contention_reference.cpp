#include "measure/contention_reference.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "measure/clock.hpp"

namespace alloclab::lab {

contention_reference::contention_reference(std::uint64_t seed)
    : words_(lines * words_per_line, 0),
      times_(chases, 0.0),
      copy_from_(copy_bytes, 1),
      copy_to_(copy_bytes, 0) {
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(seed));
  for (std::size_t i = 0; i < lines; ++i)  // one cycle through every line, starting at line 0
    words_[order[i] * words_per_line] = order[(i + 1) % lines];
}

std::size_t contention_reference::cycle_length() const {
  std::size_t length = 0;
  std::uint32_t line = 0;
  do {
    line = words_[line * words_per_line];
    ++length;
  } while (line != 0 && length <= lines);
  return length;
}

double contention_reference::memory_reading() {
  const auto start = lab_clock::now();
  std::memcpy(copy_to_.data(), copy_from_.data(), copy_bytes);
  const auto stop = lab_clock::now();
  asm volatile("" : : "r"(copy_to_.data()) : "memory");
  return static_cast<double>(elapsed_ns(start, stop));
}

double contention_reference::reading() {
  std::uint32_t line = 0;
  for (double& t : times_) {
    const auto start = lab_clock::now();
    for (std::size_t step = 0; step < lines; ++step) line = words_[line * words_per_line];
    const auto stop = lab_clock::now();
    t = static_cast<double>(elapsed_ns(start, stop));
  }
  last_stop_ = line;
  std::vector<double>::iterator middle = times_.begin() + static_cast<std::ptrdiff_t>(chases / 2);
  std::nth_element(times_.begin(), middle, times_.end());
  return *middle;
}

}  // namespace alloclab::lab
