// Spreads a run's repetitions over several processes and merges their raw
// measurements. Repetitions inside one process share its address layout and
// heap history; a whole row can move by 20 % from one process to the next
// while its repetitions agree with each other. Measuring in several processes
// puts that variance where the statistics can see it.
#pragma once

#include <chrono>
#include <vector>

#include "measurement.hpp"
#include "runner.hpp"

namespace alloclab::lab {

// The hidden subcommand a part runs as: `alloclab __lab-part <run_config JSON>`.
inline constexpr const char* lab_part_command = "__lab-part";

// Runs `config` in config.processes child processes (in-process when 1), each
// with its share of the repetitions and its own run order, and merges them.
// Throws std::runtime_error when a part fails and checksum_mismatch when parts
// disagree on what a workload built.
run_measurement run_split_suite(const run_config& config, const progress_callback& progress,
                                std::chrono::milliseconds part_timeout);

// The configuration of part `index` (0-based) of a split run.
run_config part_config(const run_config& config, std::size_t index);

// Concatenates the parts' samples and per-repetition figures cell by cell. Pure.
run_measurement merge_parts(const run_config& config, const std::vector<run_measurement>& parts);

// Entry point of a part: runs the suite and prints its measurement as JSON.
int run_lab_part(const char* config_json);

}  // namespace alloclab::lab
