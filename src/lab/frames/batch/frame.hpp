// The batch frame's row (frames/frame_module.hpp) and the functions it names.
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

frame_module batch_frame();

void add_batch_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs);
std::unique_ptr<executor> make_batch_executor();
int run_batch_worker(const char* spec_json);
void add_batch_results(const frame_results_input& in, model::document& results);
// What the frame's numbers include, for the report's reader.
std::string describe_batch_frame(const run_plan& plan);
// Its simulated cost (simulation.cpp): the worker's arguments for a cell, and the worker's
// "simulate" mode, run in the worker process (its "result").
simulate::simulation_worker batch_simulation(const run_plan& plan, const cell_spec& cell);
nlohmann::json simulate_batch_cell(const nlohmann::json& request);

}  // namespace alloclab::lab
