// A small validator for the JSON Schema subset the results schema (model/schema.hpp) and the seed
// claims' schema (claims/seed_claims.schema.json) use: type (string or list), const, enum,
// minimum, maximum, required, properties, additionalProperties (a schema, or false), items,
// minItems, maxItems, allOf, if/then/else, $ref.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// Every violation as "<json pointer>: <problem>"; empty when the document conforms.
std::vector<std::string> schema_violations(const nlohmann::json& document,
                                           const nlohmann::json& schema);

// The results schema, generated from the results model (model/schema.hpp).
const nlohmann::json& results_schema();

}  // namespace alloclab::lab
