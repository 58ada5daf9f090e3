#include "clock.hpp"

#include <algorithm>
#include <vector>

namespace alloclab::lab {

clock_profile measure_clock() {
  constexpr int pairs = 20'000;
  std::vector<std::int64_t> deltas;
  deltas.reserve(pairs);
  std::int64_t smallest_step = INT64_MAX;
  for (int i = 0; i < pairs; ++i) {
    auto a = lab_clock::now();
    auto b = lab_clock::now();
    std::int64_t d = elapsed_ns(a, b);
    deltas.push_back(d);
    if (d > 0) smallest_step = std::min(smallest_step, d);
  }
  std::nth_element(deltas.begin(), deltas.begin() + pairs / 2, deltas.end());
  clock_profile profile;
  profile.overhead_ns = static_cast<double>(std::max<std::int64_t>(deltas[pairs / 2], 1));
  profile.resolution_ns = smallest_step == INT64_MAX ? 0.0 : static_cast<double>(smallest_step);
  return profile;
}

}  // namespace alloclab::lab
