// Internal: lets each strategies/*.cpp file add its entries to the registry.
#pragma once

#include "strategy.hpp"

namespace alloclab::lab {

void register_strategy(strategy_entry entry);

struct strategy_registrar {
  explicit strategy_registrar(strategy_entry entry) { register_strategy(std::move(entry)); }
};

}  // namespace alloclab::lab
