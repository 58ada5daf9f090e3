// The serve frame's row (frames/frame_module.hpp) and the functions it names.
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

frame_module serve_frame();

void add_serve_cells(run_plan& plan, const std::vector<malloc_choice>& lab_mallocs);
std::unique_ptr<executor> make_serve_executor();
void add_serve_results(const frame_results_input& in, model::document& results);
// The serve cells' warnings: each cell without a number, each generator that saw errors.
std::vector<std::string> serve_warnings(const model::document& results);
// What the frame's numbers include, for the report's reader.
std::string describe_serve_frame(const run_plan& plan);

}  // namespace alloclab::lab
