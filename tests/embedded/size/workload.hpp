// tests/embedded/size/workload.hpp: the same small job for each code-size
// program: a vector of ints grown through the given allocator, summed.
#pragma once

#include <vector>

template <class Allocator>
int sum_of_squares(const Allocator& allocator, int count) {
  std::vector<int, Allocator> values{allocator};
  for (int i = 0; i < count; ++i) values.push_back(i * i);
  int sum = 0;
  for (int value : values) sum += value;
  return sum;
}
