// The machine and build a run was measured on, as the results' "environment" block.
#pragma once

#include <nlohmann/json.hpp>

#include "measure/build_guard.hpp"
#include "measure/clock.hpp"

namespace alloclab::lab {

nlohmann::json describe_environment(const build_facts& build);
nlohmann::json describe_timer(const clock_profile& clock);

}  // namespace alloclab::lab
