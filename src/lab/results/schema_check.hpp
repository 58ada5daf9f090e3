// A small validator for the JSON Schema subset used by report/results.schema.json:
// type (string or list), const, enum, minimum, maximum, required, properties, items.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// Every violation as "<json pointer>: <problem>"; empty when the document conforms.
std::vector<std::string> schema_violations(const nlohmann::json& document,
                                           const nlohmann::json& schema);

// The results schema compiled into the binary.
const nlohmann::json& results_schema();

}  // namespace alloclab::lab
