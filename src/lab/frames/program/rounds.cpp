#include "frames/program/rounds.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "process/descendants.hpp"
#include "process/interrupt.hpp"

namespace alloclab::program {

std::vector<std::vector<std::size_t>> round_orders(std::size_t count, std::size_t rounds,
                                                   std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::vector<std::size_t>> orders(rounds, std::vector<std::size_t>(count));
  for (auto& order : orders) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), engine);
  }
  return orders;
}

rounds_run run_rounds(const try_plan& plan, const std::function<void(const run_row&)>& progress,
                      const round_check& another_round) {
  lab::install_interrupt_handlers();
  // A program's daemonized descendants become this process's children, and end with its run.
  process::adopt_orphaned_descendants();
  const std::string proof_file = plan.scratch_directory + "/liveness-proof.txt";
  rounds_run out;
  const auto orders = round_orders(plan.combinations.size(), plan.rounds, plan.seed);
  for (std::size_t round = 0; round < orders.size(); ++round) {
    for (std::size_t position = 0; position < orders[round].size(); ++position) {
      run_row row;
      row.round = round;
      row.position = position;
      row.combination = orders[round][position];
      row.record = run_once(plan.setup, plan.combinations[row.combination], proof_file);
      process::end_leftover_children();
      // A run the signal cut short is not a measurement; the ones before it are kept.
      out.interrupted_by = lab::interrupting_signal();
      if (out.interrupted_by != 0) return out;
      if (progress) progress(row);
      out.rows.push_back(std::move(row));
    }
    out.completed = round + 1;
    if (another_round && !another_round(out.rows, out.completed)) break;
  }
  return out;
}

}  // namespace alloclab::program
