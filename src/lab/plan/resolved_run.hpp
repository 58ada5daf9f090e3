// `alloclab run`'s request resolved once, before anything is measured: names, mallocs, sizes,
// budget and the shard this process measures. The run command hands this down; no later stage
// reads the request again.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "plan/shard.hpp"

namespace alloclab::lab {

struct resolved_run {
  run_plan plan;   // what this process measures: the whole plan, or its shard's part
  run_plan whole;  // the plan before sharding (a shard writes it beside its results)
  std::optional<shard_spec> shard;
  std::vector<std::vector<std::string>> deal;  // every shard's workloads; empty without --shard
  std::string costs;  // what the deal was weighed by: "estimated" or "measured in FILE"
};

// Reads the seconds each workload took from an earlier run's results.json (`--shard-costs`).
using read_workload_costs = std::function<workload_costs(const std::string& results_path)>;

// make_plan, then --shard: the deal weighed by `task_seconds` (each task's frame's estimate) or by
// the costs `read_costs` reads from --shard-costs. Throws usage_error.
resolved_run resolve_run(const run_request& request, bool sanitized, const task_cost& task_seconds,
                         const read_workload_costs& read_costs);

}  // namespace alloclab::lab
