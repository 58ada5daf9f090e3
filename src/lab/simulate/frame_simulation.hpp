// What the simulation stage needs of a frame: its worker's arguments for a cell's simulated cost
// (simulate/frame_hook.hpp). Each frame's row fills one (frames/<name>/frame.cpp; null: its cells
// are not simulated); main/frame_registry.cpp defines frame_simulations() from the rows, so the
// queue asks a cell's frame without reaching into frames/.
#pragma once

#include <vector>

#include "plan/frame_planner.hpp"
#include "simulate/frame_hook.hpp"

namespace alloclab::lab {

using simulation_function = simulate::simulation_worker (*)(const run_plan& plan,
                                                            const cell_spec& cell);

struct frame_simulation {
  simulation_function simulation = nullptr;
};

// Every frame's hook, in table order (main/frame_registry.cpp).
const std::vector<frame_row<frame_simulation>>& frame_simulations();

}  // namespace alloclab::lab
