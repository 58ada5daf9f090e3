// The program frame's runs as the rounds' stop rule reads them (schedule/round_stopping.hpp:
// when `alloclab try` stops, with its looks): each run's CPU time, its resolution, and the
// combinations as the cells the rule judges against the baseline. The figures (figures.hpp)
// take their final intervals from the same judge (lab::judge_rounds) at the last look's rule.
//
// Example:
//   lab::round_stopper stopper(adaptive_stopping(4, 40, 300), judged_cpu(combinations, 0.03));
//   stopper.another_round(readings_of(rows, cpu_seconds_of), 4, 120.0);
#pragma once

#include <string>
#include <vector>

#include "frames/program/program_plan.hpp"
#include "schedule/round_stopping.hpp"

namespace alloclab::program {

using lab::adaptive_stopping;
using lab::fixed_stopping;
using lab::noise_boundaries;
using lab::round_stopper;
using lab::stopping_outcome;
using lab::stopping_plan;

/// The resolutions of the figures: CPU time (rusage, counted to a millisecond here to be safe
/// about tick-based accounting) and peak RSS (ru_maxrss counts KiB).
inline constexpr double cpu_resolution_seconds = 1e-3;
inline constexpr double rss_resolution_bytes = 1024;

double cpu_seconds_of(const run_record& r);
double peak_rss_of(const run_record& r);

/// Each row's `figure`, by its round and combination (the cell).
std::vector<lab::round_reading> readings_of(const std::vector<run_row>& rows,
                                            double (*figure)(const run_record&));

/// The combinations' figure of `resolution` judged against the baseline's (figures.hpp's
/// baseline_of).
lab::round_judged judged_on(const std::vector<variant>& combinations, double noise_floor,
                            double resolution);
/// The combinations' CPU time judged against the baseline's: what the rounds stop by.
lab::round_judged judged_cpu(const std::vector<variant>& combinations, double noise_floor);

}  // namespace alloclab::program
