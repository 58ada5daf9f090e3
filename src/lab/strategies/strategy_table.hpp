// Internal: lets each strategies/*.cpp file add its entries to the registry.
#pragma once

#include <string>

#include "strategy.hpp"

namespace alloclab::lab {

void register_strategy(strategy_entry entry);

// The applicability check of a strategy that runs every workload: no reason against it.
inline std::string always_applicable(const workload_footprint&) {
  return {};
}

struct strategy_registrar {
  explicit strategy_registrar(strategy_entry entry) { register_strategy(std::move(entry)); }
};

}  // namespace alloclab::lab
