#include "frames/program/rounds.hpp"

#include <algorithm>
#include <numeric>
#include <random>

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

std::vector<run_row> run_rounds(const try_plan& plan,
                                const std::function<void(const run_row&)>& progress,
                                const round_check& another_round) {
  lab::install_interrupt_handlers();
  const std::string proof_file = plan.scratch_directory + "/liveness-proof.txt";
  std::vector<run_row> rows;
  const auto orders = round_orders(plan.combinations.size(), plan.rounds, plan.seed);
  for (std::size_t round = 0; round < orders.size(); ++round) {
    for (std::size_t position = 0; position < orders[round].size(); ++position) {
      lab::throw_if_interrupted();
      run_row row;
      row.round = round;
      row.position = position;
      row.combination = orders[round][position];
      row.record = run_once(plan.setup, plan.combinations[row.combination], proof_file);
      lab::throw_if_interrupted();
      if (progress) progress(row);
      rows.push_back(std::move(row));
    }
    if (another_round && !another_round(rows, round + 1)) break;
  }
  return rows;
}

}  // namespace alloclab::program
