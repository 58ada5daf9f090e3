// The JSON Schema of results.json and the field tables of docs/results-schema.md, both generated
// from the results model's field lists (model/fields.hpp) and each frame's parts (through the
// frame table). `alloclab validate` checks files against the first; tests check that the
// committed src/lab/results/results.schema.json and the generated part of docs/results-schema.md
// are what these produce (`alloclab schema` and `alloclab schema --markdown` print them).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab::model {

// A JSON Schema (the subset results/schema_check.hpp validates: type, const, enum, minimum,
// maximum, required, properties, items, additionalProperties, allOf, if, then).
nlohmann::json results_json_schema();

// Where `document` holds a key the model does not describe (e.g. "/workloads/0/cells/1/foo"): a
// writer that adds a key must add it to the model first. A null key that another frame's part
// names is described (version 6 gave every cell and workload every frame's keys, and a served
// cell every lab cell's).
std::vector<std::string> undescribed_keys(const nlohmann::json& document);

// The field tables, one per struct, as Markdown.
std::string results_field_tables();

}  // namespace alloclab::lab::model
