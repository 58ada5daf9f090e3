// The program frame's typed figures: per combination, the medians of what its runs measured, its
// CPU-time and peak-RSS ratios to the baseline (glibc's defaults) judged by the lab's one rule
// (stats/decision.hpp), whether it lies on the CPU-versus-peak-RSS Pareto front, and whether the
// program printed the same output under every combination.
//
// Example:
//   const auto figures = alloclab::program::compute_figures(combinations, rows, true);
//   for (const auto& c : figures.combinations) { /* c.cpu->verdict, c.on_pareto_front */ }
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frames/program/program_plan.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"

namespace alloclab::program {

/// B / baseline of per-run figures: its ratio and interval (ratio of medians with a 95 % bootstrap
/// interval, or, when the rounds stopped adaptively, the stop rule's ratio of geometric means with
/// its interval at the last look), the U test and the verdict of the lab's one rule.
struct ratio_figure {
  double value = 0;
  lab::interval range;
  double p_value = 1;
  bool has_power = false;
  lab::difference verdict = lab::difference::too_few;
  /// Adaptive rounds only: whether the stop rule decided it (interval wholly beyond the noise
  /// floor or wholly inside it, with enough runs); an undecided "inside the noise" is open.
  std::optional<bool> decided;
};

struct combination_figures {
  std::string label;   ///< "jemalloc dirty_decay_ms=0"
  std::string malloc;  ///< registry name
  std::size_t runs_ok = 0, runs_failed = 0;
  run_figures median;  ///< medians over the ok runs of each figure (zeros when there are none)
  std::optional<ratio_figure> cpu, peak_rss;  ///< none for the baseline or without ok runs
  bool on_pareto_front = false;               ///< no other combination has both lower medians
  std::vector<std::uint64_t> stdout_hashes;   ///< distinct, over the ok runs, in first-seen order
  std::vector<std::string> failures;          ///< distinct reasons of failed runs
};

struct output_check {
  bool checked = false;
  bool consistent = true;  ///< one stdout over every ok run of every combination
  std::string finding;     ///< what differed, when not consistent
};

struct program_figures {
  std::size_t baseline = 0;  ///< index of glibc's defaults, else of the first combination
  double noise_floor = 0;    ///< fraction used by the verdicts
  std::vector<combination_figures> combinations;
  output_check output;
};

/// Every row must index into `combinations`. With `stopped_at` (the rule of the last look of an
/// adaptive run), intervals are the stop rule's, valid despite the looks; else bootstrap ones.
program_figures compute_figures(const std::vector<variant>& combinations,
                                const std::vector<run_row>& rows, bool check_output,
                                double noise_floor = lab::default_noise_floor_percent / 100,
                                const std::optional<lab::stop_rule>& stopped_at = std::nullopt);

/// The baseline: glibc without knobs, else the first combination.
std::size_t baseline_of(const std::vector<variant>& combinations);

/// "faster", "slower", "inside the noise", "too few runs" (CPU); "smaller"/"larger" for memory.
const char* cpu_verdict(lab::difference d);
const char* memory_verdict(lab::difference d);

}  // namespace alloclab::program
