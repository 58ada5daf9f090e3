// How well a replay's malloc ranking agrees with real runs of the same program: Spearman's rank
// correlation of the two sets of ratios (the baseline counted at 1), each malloc's ratio error
// (replay ratio / real ratio - 1), and every reversal: a malloc whose real runs decided a
// direction (faster or slower than the baseline) while the replay's point estimate lies on the
// other side of 1, whether or not the replay decided anything (its intervals are wide).
//
// Example:
//   using namespace alloclab::lab;
//   const malloc_costs base{"glibc", {100, 100, 101, 99, 100}};
//   const malloc_advice real = advise_malloc(base, {{"mimalloc", {80, 81, 79, 80, 80}}});
//   const malloc_advice replay = advise_malloc(base, {{"mimalloc", {70, 71, 69, 70, 70}}});
//   const replay_agreement a = agree(replay, real);  // a.spearman == 1, no reversal
#pragma once

#include <string>
#include <vector>

#include "advise/malloc_advice.hpp"

namespace alloclab::lab {

struct ratio_error {
  std::string malloc;
  double replay_ratio = 0, real_ratio = 0;
  double error() const noexcept { return real_ratio > 0 ? replay_ratio / real_ratio - 1 : 0; }
};

struct replay_agreement {
  std::size_t mallocs = 0;  ///< judged by both, the baseline included
  double spearman = 0;      ///< NaN when either side ranks everything equal
  std::vector<ratio_error> errors;
  std::vector<ratio_error> reversed;  ///< the reversals (decided real direction vs estimate)
};

/// Spearman's rank correlation (ties get their mean rank); NaN when a side has no spread.
double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);

/// The mallocs both judged (by name) against the same baseline.
replay_agreement agree(const malloc_advice& replay, const malloc_advice& real);

/// Lines for the advice: one warning line per reversal, then rho and the errors.
std::string render_agreement(const replay_agreement& a, const std::string& replay_figure);

}  // namespace alloclab::lab
