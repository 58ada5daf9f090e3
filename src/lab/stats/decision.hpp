// The lab's one rule for "these two differ": used by the peer verdicts, `compare` and `advise`,
// so that a difference one of them calls decided is decided for all of them.
#pragma once

#include <string>

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

// The power check: whether the U test over samples of n1 and n2 can reach p < alpha at all (false
// when either is empty). Every verdict asks it before it calls a difference decided.
bool can_reach_significance(std::size_t n1, std::size_t n2, double alpha = significance_alpha);

const char* to_string(difference d);

// Two sides the same within +-margin is an answer too (two one-sided tests: the interval, at the
// confidence its rule gives, lies wholly inside [1 / (1 + margin), 1 + margin]). A budgeted run
// tracks vs_std and peer comparisons with this margin.
inline constexpr double default_equivalence_margin = 0.02;

enum class ratio_verdict {
  favours_candidate,  // the interval lies above 1 (> 1 favours the candidate)
  favours_base,       // below 1
  same_within,        // includes 1, but lies inside the equivalence margin
  open,               // none of these: more evidence needed
};
// `margin` <= 0: no equivalence answer.
ratio_verdict judge_ratio_interval(double low, double high, double margin);
bool inside_margin(double low, double high, double margin);
const char* to_string(ratio_verdict v);

// The one vocabulary every command prints a verdict in (try, replay, advise, compare, reports):
//   "decided ABOVE" / "decided BELOW"  judge_difference decided it (`above_one`: what a ratio above
//                                      1 means for the reader, e.g. "faster" for baseline ÷ candidate)
//   "the same within ±M %"             undecided, and the interval lies inside the noise floor M
//                                      on both sides (inside_margin)
//   "open (inconclusive)"              neither: more runs could decide it
//   "open (too few runs)"              the U test cannot reach p < 0.05 with these counts
std::string verdict_words(difference d, const interval& range, double noise_floor,
                          const char* above_one, const char* below_one);

// The same verdict in one word, for compact tables (console summaries), whose legends say so:
// ABOVE / BELOW (decided), "same" (the same within ±M %), "open" (either open).
std::string verdict_word(difference d, const interval& range, double noise_floor,
                         const char* above_one, const char* below_one);

}  // namespace alloclab::lab
