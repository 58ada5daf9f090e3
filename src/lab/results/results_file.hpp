// Reading a results file: checked against the schema version and the results schema, or refused
// with one line (usage_error) naming the file. Every command that reads a results file goes here.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/document.hpp"

namespace alloclab::lab {

// A results file, or one line saying why it is not one (not JSON, not an alloclab results file).
nlohmann::json read_results_file(const std::string& path);

// Schema problems, or a single line when the file was written by another schema version.
std::vector<std::string> results_problems(const nlohmann::json& results);

// A results file as `report` reads it: JSON, an alloclab results document of this schema version,
// valid against the schema. Anything else is a usage_error naming the file in one line.
nlohmann::json read_checked_results(const std::string& path);
// The same, read once into the results model (usage_error for a file it cannot read).
model::document read_results_model(const std::string& path);
// The same, but its schema_version is the file's (model::from_json reads an older version as the
// current one): model::to_json writes it back laid out as the file was. `merge` copies a whole run
// so, and `export` names the file's version.
model::document read_results_model_as_written(const std::string& path);

}  // namespace alloclab::lab
