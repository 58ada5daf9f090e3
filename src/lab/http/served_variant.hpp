// One workload run with one strategy, one iteration per call, as the server's /run does it.
// The strategy's request scope ends with every iteration (iteration_source::end_iteration: an
// arena is rewound), so each request starts from a reset arena, as in seed 004's serve frame.
// Strategy instances are not thread-safe: each concurrent request borrows its own from a pool.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab::http {

struct iteration_result {
  bool ok = false;
  std::uint64_t checksum = 0;
  std::uint64_t workload_ns = 0;  // time inside the workload and its end_iteration
  std::string error;              // when !ok: one line
};

class served_variant {
 public:
  // Throws usage_error for an unknown workload or strategy, or a strategy that cannot run the
  // workload (its reason). Prepares the input from `seed` and runs one reference iteration.
  served_variant(const std::string& workload, const std::string& strategy, std::uint64_t seed);

  const std::string& workload() const { return workload_->name; }
  const std::string& strategy() const { return strategy_->name; }
  std::uint64_t expected_checksum() const { return expected_checksum_; }

  // One iteration; never throws for a workload failure (bad_alloc, checksum mismatch).
  iteration_result run_one();

 private:
  std::unique_ptr<strategy_instance> borrow();
  void give_back(std::unique_ptr<strategy_instance> instance);

  const workload_entry* workload_;
  const strategy_entry* strategy_;
  prepared_input input_;
  workload_footprint footprint_;
  std::uint64_t expected_checksum_ = 0;
  bool have_reference_ = false;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<strategy_instance>> pool_;
};

}  // namespace alloclab::lab::http
