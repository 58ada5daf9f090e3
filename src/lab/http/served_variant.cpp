#include "http/served_variant.hpp"

#include <new>

#include <fmt/format.h>

#include "io/usage_error.hpp"
#include "measure/clock.hpp"
#include "strategies/sizing.hpp"

namespace alloclab::lab::http {

served_variant::served_variant(const std::string& workload, const std::string& strategy,
                               std::uint64_t seed)
    : workload_(find_workload(workload)), strategy_(find_strategy(strategy)) {
  if (workload_ == nullptr)
    throw usage_error(fmt::format("unknown workload '{}' (see `alloclab list`)", workload));
  if (strategy_ == nullptr)
    throw usage_error(fmt::format("unknown strategy '{}' (see `alloclab list`)", strategy));
  input_ = workload_->prepare(seed);
  footprint_ = measure_footprint(*workload_, input_.get());
  if (std::string why = strategy_->not_applicable(footprint_); !why.empty())
    throw usage_error(fmt::format("strategy {} cannot run workload {}: {}", strategy_->name,
                                  workload_->name, why));
  const iteration_result first = run_one();
  if (!first.ok)
    throw usage_error(fmt::format("workload {} fails under strategy {}: {}", workload_->name,
                                  strategy_->name, first.error));
  expected_checksum_ = first.checksum;
  have_reference_ = true;
}

iteration_result served_variant::run_one() {
  iteration_result r;
  std::unique_ptr<strategy_instance> instance = borrow();
  const auto start = lab_clock::now();
  try {
    r.checksum = workload_->run_batch(input_.get(), *instance, 1);
    r.ok = true;
  } catch (const std::bad_alloc& e) {
    instance->end_iteration();
    r.error = fmt::format("the strategy's buffer is exhausted ({})", e.what());
  }
  r.workload_ns = static_cast<std::uint64_t>(elapsed_ns(start, lab_clock::now()));
  give_back(std::move(instance));
  if (r.ok && have_reference_ && r.checksum != expected_checksum_) {
    r.ok = false;
    r.error = fmt::format("checksum {:#x} differs from the reference {:#x}", r.checksum,
                          expected_checksum_);
  }
  return r;
}

std::unique_ptr<strategy_instance> served_variant::borrow() {
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!pool_.empty()) {
      std::unique_ptr<strategy_instance> instance = std::move(pool_.back());
      pool_.pop_back();
      return instance;
    }
  }
  return strategy_->make(footprint_);
}

void served_variant::give_back(std::unique_ptr<strategy_instance> instance) {
  std::lock_guard<std::mutex> lock(pool_mutex_);
  pool_.push_back(std::move(instance));
}

}  // namespace alloclab::lab::http
