// The program frame's schedule: every combination once per round, each round in a fresh random
// order (seeded, so a run can be repeated), rounds interleaved so that drift on a shared machine
// spreads over all combinations instead of landing on one.
//
// Example:
//   const auto orders = alloclab::program::round_orders(3, 2, 42);
//   // orders.size() == 2, each a permutation of {0, 1, 2}
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frames/program/program_run.hpp"

namespace alloclab::program {

struct run_row {
  std::size_t round = 0;        ///< 0-based
  std::size_t position = 0;     ///< place in its round's order
  std::size_t combination = 0;  ///< index into the plan's combinations
  run_record record;
};

struct try_plan {
  run_setup setup;
  std::vector<variant> combinations;
  std::size_t rounds = 5;  ///< at most this many
  std::uint64_t seed = 1;
  std::string scratch_directory;  ///< where each run's proof file is written
};

/// `rounds` permutations of 0..count-1.
std::vector<std::vector<std::size_t>> round_orders(std::size_t count, std::size_t rounds,
                                                   std::uint64_t seed);

/// After each round: the rows so far and the rounds completed; false stops the run.
using round_check = std::function<bool(const std::vector<run_row>&, std::size_t)>;

struct rounds_run {
  std::vector<run_row> rows;  ///< every run that finished, the unfinished round's included
  std::size_t completed = 0;  ///< whole rounds
  int interrupted_by = 0;     ///< SIGINT or SIGTERM that stopped the rounds; 0: none
};

/// Runs up to plan.rounds rounds, fewer when `another_round` says stop; `progress` sees each row
/// as it finishes. On SIGINT or SIGTERM the running program's process group is killed (by the
/// handler) and the rows finished so far are returned with `interrupted_by` set.
rounds_run run_rounds(const try_plan& plan,
                      const std::function<void(const run_row&)>& progress = {},
                      const round_check& another_round = {});

}  // namespace alloclab::program
