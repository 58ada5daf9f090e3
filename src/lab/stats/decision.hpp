// The lab's verdict rules, in one place: "these two differ" (used by the peer verdicts, `compare`
// and `advise`, so that a difference one of them calls decided is decided for all of them), its
// power check, "these two are the same within a margin", and a seed claim's verdict, which
// stands on the first two.
#pragma once

#include <optional>
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

// A seed claim's ratio (claims/seed_claims.json) is judged against the range the claim accepts:
// its claimed value widened by its tolerance (claims/claim_metrics.hpp's accepted).
struct accepted_range {
  double low = 0, high = 0;
  bool contains(double v) const { return v >= low && v <= high; }
  // Whether the claim asserts a difference (the range excludes 1) rather than a sameness.
  bool excludes_one() const { return low > 1 || high < 1; }
};

// What stands behind a measured interval besides itself: the U test over the repetitions it was
// bootstrapped from. A stop-rule interval (stats/sequential.hpp) needs none: its confidence
// already holds the rule's looks, and it decides on the interval alone.
struct difference_test {
  double p_value = 1;
  bool has_power = false;
};

enum class claim_finding { reproduced, refuted, inconclusive };

// A claim is reproduced when its measured interval lies wholly inside the accepted range and, when
// the range excludes 1 (the claim asserts a difference), judge_difference decides that difference
// (given `test`; noise floor 0, as the peer verdict): a claim is never reproduced on a difference
// the lab's one rule calls noise. Refuted when the interval lies wholly outside the range (like the
// equivalence verdict, on the interval alone); inconclusive otherwise, or with no valid interval.
claim_finding judge_claim(const interval& measured, const accepted_range& range,
                          const std::optional<difference_test>& test);
const char* to_string(claim_finding v);  // "reproduced", "refuted", "inconclusive"

// A ranking claim ("X has the lowest figure among ..."): whether the pooled figures rank it so is
// decided only when the U test between the first and its nearest rival gives p < alpha, with the
// power to reach it; inconclusive otherwise.
claim_finding judge_ranking(bool ranks_as_claimed, const difference_test& gap);

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
