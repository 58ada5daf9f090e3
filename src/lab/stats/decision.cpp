#include "stats/decision.hpp"

#include <fmt/format.h>

namespace alloclab::lab {

bool can_reach_significance(std::size_t n1, std::size_t n2, double alpha) {
  return n1 > 0 && n2 > 0 && mann_whitney_min_p(n1, n2) < alpha;
}

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

bool inside_margin(double low, double high, double margin) {
  return margin > 0 && low > 0 && high < 1e300 && low >= 1 / (1 + margin) && high <= 1 + margin;
}

ratio_verdict judge_ratio_interval(double low, double high, double margin) {
  if (!(low > 0) || !(high < 1e300)) return ratio_verdict::open;
  if (low > 1) return ratio_verdict::favours_candidate;
  if (high < 1) return ratio_verdict::favours_base;
  return inside_margin(low, high, margin) ? ratio_verdict::same_within : ratio_verdict::open;
}

const char* to_string(ratio_verdict v) {
  switch (v) {
    case ratio_verdict::favours_candidate:
      return "candidate faster";
    case ratio_verdict::favours_base:
      return "candidate slower";
    case ratio_verdict::same_within:
      return "the same within the margin";
    case ratio_verdict::open:
      return "open";
  }
  return "open";
}

claim_finding judge_claim(const interval& measured, const accepted_range& range,
                          const std::optional<difference_test>& test) {
  if (!measured.valid()) return claim_finding::inconclusive;
  if (!(measured.low >= range.low && measured.high <= range.high))
    return measured.high < range.low || measured.low > range.high ? claim_finding::refuted
                                                                  : claim_finding::inconclusive;
  if (!range.excludes_one() || !test) return claim_finding::reproduced;
  const difference claimed = range.low > 1 ? difference::higher : difference::lower;
  return judge_difference(test->p_value, test->has_power, measured) == claimed
             ? claim_finding::reproduced
             : claim_finding::inconclusive;
}

claim_finding judge_ranking(bool ranks_as_claimed, const difference_test& gap) {
  if (!gap.has_power || !(gap.p_value < significance_alpha)) return claim_finding::inconclusive;
  return ranks_as_claimed ? claim_finding::reproduced : claim_finding::refuted;
}

const char* to_string(claim_finding v) {
  switch (v) {
    case claim_finding::reproduced:
      return "reproduced";
    case claim_finding::refuted:
      return "refuted";
    case claim_finding::inconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

namespace {

enum class verdict_kind { above, below, same_within, open_inconclusive, open_too_few };

verdict_kind verdict_of(difference d, const interval& range, double noise_floor) {
  switch (d) {
    case difference::higher:
      return verdict_kind::above;
    case difference::lower:
      return verdict_kind::below;
    case difference::too_few:
      return verdict_kind::open_too_few;
    case difference::inside_noise:
      break;
  }
  // Equivalence as judge_ratio_interval's same_within (inside_margin), also for an interval that
  // excludes 1 but lies inside the floor: a difference too small to count.
  if (range.valid() && inside_margin(range.low, range.high, noise_floor))
    return verdict_kind::same_within;
  return verdict_kind::open_inconclusive;
}

}  // namespace

std::string verdict_words(difference d, const interval& range, double noise_floor,
                          const char* above_one, const char* below_one) {
  switch (verdict_of(d, range, noise_floor)) {
    case verdict_kind::above:
      return std::string("decided ") + above_one;
    case verdict_kind::below:
      return std::string("decided ") + below_one;
    case verdict_kind::same_within:
      return fmt::format("the same within ±{:g} %", 100 * noise_floor);
    case verdict_kind::open_too_few:
      return "open (too few runs)";
    case verdict_kind::open_inconclusive:
      break;
  }
  return "open (inconclusive)";
}

std::string verdict_word(difference d, const interval& range, double noise_floor,
                         const char* above_one, const char* below_one) {
  switch (verdict_of(d, range, noise_floor)) {
    case verdict_kind::above:
      return above_one;
    case verdict_kind::below:
      return below_one;
    case verdict_kind::same_within:
      return "same";
    case verdict_kind::open_inconclusive:
    case verdict_kind::open_too_few:
      break;
  }
  return "open";
}

}  // namespace alloclab::lab
