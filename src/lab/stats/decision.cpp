#include "stats/decision.hpp"

namespace alloclab::lab {

difference judge_difference(double p_value, bool has_power, const interval& range,
                            double noise_floor) {
  if (!has_power) return difference::too_few;
  if (!(p_value < significance_alpha) || !range.valid()) return difference::inside_noise;
  if (range.low > 1 + noise_floor) return difference::higher;
  if (range.high < 1 / (1 + noise_floor)) return difference::lower;
  return difference::inside_noise;
}

const char* to_string(difference d) {
  switch (d) {
    case difference::higher:
      return "higher";
    case difference::lower:
      return "lower";
    case difference::inside_noise:
      return "inside the noise";
    case difference::too_few:
      return "too few repetitions";
  }
  return "inside the noise";
}

}  // namespace alloclab::lab
