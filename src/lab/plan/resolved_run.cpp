#include "plan/resolved_run.hpp"

namespace alloclab::lab {

resolved_run resolve_run(const run_request& request, bool sanitized, const task_cost& task_seconds,
                         const read_workload_costs& read_costs) {
  resolved_run run;
  run.plan = make_plan(request, sanitized);
  run.whole = run.plan;
  if (!request.shard_costs.empty() && request.shard.empty())
    throw usage_error("--shard-costs weighs the deal of --shard: give --shard too");
  if (request.shard.empty()) return run;
  run.shard = parse_shard(request.shard, process_environment());
  const bool measured = !request.shard_costs.empty();
  run.costs = measured ? "measured in " + request.shard_costs : "estimated";
  run.deal = deal_workloads(run.plan, run.shard->count, task_seconds,
                            measured ? read_costs(request.shard_costs) : workload_costs{});
  keep_workloads(run.plan, run.deal.at(run.shard->index - 1));
  return run;
}

}  // namespace alloclab::lab
