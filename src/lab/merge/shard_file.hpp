// The shard file: what `alloclab run --shard K/N` writes beside its results.json (shard.json) so
// that `alloclab merge` can rebuild the whole plan's results with the one results builder, from
// the measurements themselves rather than from each shard's derived figures:
//
//   {"schema": "alloclab-shard", "results_schema_version": 6,
//    "shard": {"index": K, "count": N, "source": "..."},
//    "deal": [[workloads of shard 1], [of shard 2], ...],
//    "plan": the whole plan before sharding (cells, schedule, sizes, mallocs, ...),
//    "records": [every measurement record of this shard, in its schedule's order],
//    "frame_facts": {...}, "duration_seconds": s,
//    "context": {"build": {...}, "command": "...", "created_utc": "...", "placement": {...}}}
//
// The plan is the whole plan (as make_plan built it) and the deal how it was split, so that merge
// knows which cells each shard must hold, whatever costs the split was weighed by.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "plan/shard.hpp"
#include "results/results_builder.hpp"
#include "schedule/scheduler.hpp"

namespace alloclab::lab {

inline constexpr const char* shard_file_name = "shard.json";

struct shard_file {
  shard_spec shard;
  std::vector<std::vector<std::string>> deal;  // every shard's workloads, as this run dealt them
  run_plan whole_plan;
  run_records records;
  results_context context;
};

nlohmann::json to_json(const shard_file& file);
// Throws usage_error naming `path` for a document that is not a shard file of this version.
shard_file shard_file_from_json(const nlohmann::json& doc, const std::string& path);

// The plan alone, both ways (cells carry their malloc choice whole; a registry malloc's entry is
// looked up again by name).
nlohmann::json plan_to_json(const run_plan& plan);
run_plan plan_from_json(const nlohmann::json& j);

}  // namespace alloclab::lab
