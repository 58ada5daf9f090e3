// The replay frame's row (frames/frame_module.hpp) and the functions it names.
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

frame_module replay_frame();

void add_replay_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs);
std::unique_ptr<executor> make_replay_executor();
int run_replay_worker(const char* spec_json);
void add_replay_results(const frame_results_input& in, model::document& results);
// What the frame's numbers include, for the report's reader.
std::string describe_replay_frame(const run_plan& plan);

}  // namespace alloclab::lab
