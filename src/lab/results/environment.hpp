// The machine and build a run was measured on, as the results' "environment" block.
#pragma once

#include "measure/build_guard.hpp"
#include "measure/clock.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

model::environment describe_environment(const build_facts& build);
model::timer_facts describe_timer(const clock_profile& clock);

}  // namespace alloclab::lab
