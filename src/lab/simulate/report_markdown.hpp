// report.md's "Simulated cost" section (docs/simulated-cost.md), from the results model alone;
// nothing when the run simulated nothing.
#pragma once

#include <string>

#include "model/document.hpp"

namespace alloclab::lab::simulate {

void simulated_cost_section(std::string& md, const model::document& d);

}  // namespace alloclab::lab::simulate
