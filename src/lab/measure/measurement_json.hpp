// The raw measurement of a run as JSON, so that a run split across processes
// can hand its part back to the parent (see split_run.hpp). Lossless for
// every field the results builder reads.
#pragma once

#include <nlohmann/json.hpp>

#include "measurement.hpp"

namespace alloclab::lab {

nlohmann::json to_json(const run_config& config);
run_config run_config_from_json(const nlohmann::json& j);

nlohmann::json to_json(const run_measurement& run);
// Throws nlohmann::json::exception on a document that is not a measurement.
run_measurement run_measurement_from_json(const nlohmann::json& j);

}  // namespace alloclab::lab
