// The lab's one rule for "these two differ": used by the peer verdicts, `compare` and `advise`,
// so that a difference one of them calls decided is decided for all of them.
#pragma once

#include "stats/stats.hpp"

namespace alloclab::lab {

// Changes under this many percent are noise unless the user says otherwise (compare, advise): two
// back-to-back runs of one commit on a shared 2-core VM moved cells by up to 3.3 % with p < 0.05.
inline constexpr double default_noise_floor_percent = 3.0;

enum class difference {
  higher,        // the ratio is above 1, outside the noise
  lower,         // below 1, outside the noise
  inside_noise,  // the U test or the interval does not exclude "no difference"
  too_few,       // so few repetitions that the U test cannot reach significance
};

// A ratio (B / A of per-repetition figures) is decided when
//   * the Mann-Whitney U test over the repetitions gives p < significance_alpha, and the sample
//     sizes can reach that p at all (`has_power`), and
//   * its 95 % interval lies wholly beyond the noise floor on one side: low > 1 + floor, or
//     high < 1 / (1 + floor). `noise_floor` is a fraction (0.02: changes under 2 % are noise).
difference judge_difference(double p_value, bool has_power, const interval& range,
                            double noise_floor = 0);

const char* to_string(difference d);

}  // namespace alloclab::lab
