// The heap frame's row (frames/frame_module.hpp) and the functions it names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frames/frame_module.hpp"
#include "results/cell_parts.hpp"
#include "render/markdown_sections.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {

frame_module heap_frame();

void add_heap_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs);
std::unique_ptr<executor> make_heap_executor();
int run_heap_worker(const char* spec_json);
void add_heap_results(const frame_results_input& in, model::document& results);
// What the frame's numbers include, for the report's reader.
std::string describe_heap_frame(const run_plan& plan);
// The worker's spec for task `t` of `cell`.
nlohmann::json heap_cell_spec(const cell_spec& cell, const task& t, const run_plan& plan);
// The worker's arguments for a cell's simulated cost (simulation.cpp).
simulate::simulation_worker heap_simulation(const run_plan& plan, const cell_spec& cell);

}  // namespace alloclab::lab
