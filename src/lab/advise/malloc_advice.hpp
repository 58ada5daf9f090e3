// Which process-wide malloc to use, from per-repetition costs of each malloc beside a baseline
// (ns per replayed call, or CPU time of a real run): every malloc judged by the lab's one
// verdict rule (stats/decision.hpp), a switch recommended only for a gain that rule decides
// beyond the noise floor, every decided-slower malloc named to avoid.
//
// Example:
//   using namespace alloclab::lab;
//   const malloc_costs glibc{"glibc", {100, 101, 99, 100, 102, 100, 101}};
//   const malloc_costs fast{"mimalloc", {80, 81, 79, 80, 82, 80, 81}};
//   const malloc_advice a = advise_malloc(glibc, {fast});
//   // a.switch_to == 0: mimalloc, 1.25x faster, decided
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stats/decision.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {

/// One malloc's cost per repetition; lower is better.
struct malloc_costs {
  std::string malloc;
  std::vector<double> samples;
};

struct malloc_judgement {
  std::string malloc;
  double ratio = 0;  ///< the baseline's median cost / this one's (> 1: faster)
  interval range;    ///< 95 % bootstrap interval of that ratio (invalid: none)
  double p_value = 1;
  difference verdict = difference::too_few;
  bool faster() const noexcept { return verdict == difference::higher; }
  bool slower() const noexcept { return verdict == difference::lower; }
};

struct malloc_advice {
  std::string baseline;
  double noise_floor_percent = default_noise_floor_percent;
  std::vector<malloc_judgement> others;  ///< in the order given
  std::optional<std::size_t> switch_to;  ///< into others: the largest decided gain
  std::vector<std::size_t> avoid;        ///< into others: every decided loss
};

/// Judges each of `others` against `baseline`.
malloc_advice advise_malloc(const malloc_costs& baseline, const std::vector<malloc_costs>& others,
                            double noise_floor_percent = default_noise_floor_percent);

/// A ratio already measured and filed (e.g. by `alloclab try`): baseline ÷ this (> 1: faster),
/// its interval, the U test's p and whether the run counts could reach p < 0.05.
struct filed_ratio {
  std::string malloc;
  double ratio = 0;
  interval range;
  double p_value = 1;
  bool enough_runs = false;
};

/// The advice from filed ratios, each judged by the lab's rule at this noise floor.
malloc_advice advise_from_filed(const std::string& baseline, const std::vector<filed_ratio>& filed,
                                double noise_floor_percent = default_noise_floor_percent);

/// The lab's one vocabulary (stats/decision.hpp verdict_words) for this judgement: "decided
/// faster", "decided slower", "the same within ±3 %", "open (inconclusive)", "open (too few runs)".
std::string verdict_of(const malloc_judgement& j, double noise_floor_percent);

/// "1.25x [1.22–1.28], decided faster (U test p = 0.001)".
std::string judgement_text(const malloc_judgement& j, double noise_floor_percent);

/// The same for a replay's judgement: "1.25x [1.22–1.28], in the replay decided faster (U test
/// over whole replays, p = 0.001)": a replay decision is about the replay, not the program.
std::string replay_judgement_text(const malloc_judgement& j, double noise_floor_percent);

/// The one ratio convention of advise and try: "glibc ÷ malloc, > 1: faster than glibc".
std::string ratio_convention(const std::string& baseline);

/// The answer in one line: "use mimalloc: decided faster than glibc, 1.25x [...]" or "keep glibc:
/// no malloc decided faster (jemalloc the same within ±3 %; ...)".
/// `of_replay`: the judgements are a replay's, and the line says "in the replay".
std::string answer_text(const malloc_advice& a, bool of_replay = false);

/// Every judgement, one line each, under a line naming `source` and the ratio convention.
std::string render_malloc_advice(const malloc_advice& a, const std::string& source);

}  // namespace alloclab::lab
