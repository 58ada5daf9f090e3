// `alloclab merge DIR|results.json ... -o OUT`.
//
// Inputs of one machine type are shards of one plan: they merge into OUT/results.json,
// report.md and report.html (merge/shard_merge.hpp). Inputs of several machine types (each one
// whole run, or the complete shards of one) make a fleet: each machine's results go to
// OUT/machine-<label>/ and the comparison of them to OUT/fleet.md, fleet.html and fleet.json
// (merge/fleet.hpp). Every input must come from one build and one configuration.
//
// Refused with exit 2 and one line: overlapping shards (or two whole runs of one machine type),
// a missing shard, shards that do not hold the cells their index deals them, mixed builds, mixed
// configurations, another schema version, a single whole run (nothing to merge).
#pragma once

#include <string>
#include <vector>

namespace alloclab::lab {

int execute_merge(const std::vector<std::string>& inputs, const std::string& output_directory,
                  const std::string& command_line);

}  // namespace alloclab::lab
