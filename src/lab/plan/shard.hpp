// `alloclab run --shard K/N`: one deterministic Nth of a plan's cells, for job engines that start
// one process per index (Kubernetes Indexed Jobs, Slurm job arrays, CI matrices).
//
// The unit of sharding is the workload: every cell of one workload (all its strategies, mallocs,
// frames and its placement twin) lands in the same shard, so the cells it is compared with
// (its baseline, its twin, its other frame) are measured on the same machine, after the same
// calibration. Workloads are dealt out by expected cost, largest first, each to the shard with the
// least so far (ties: the first workload, the lowest shard): the same plan (and the same
// `--shard-costs` file) always gives the same shards, whatever the machine. The expected cost is
// each task's estimate from its frame, or, given `--shard-costs RESULTS`, the seconds each
// workload's processes took in that earlier run. Inside a shard, the schedule is the plan's own with the other
// shards' tasks left out, so each cell keeps its processes, seeds and shuffled rounds.
//
// `--shard auto` reads the index and count from the job engine's environment, the first pair set:
//
// | variables                                        | engine                         | index  |
// |--------------------------------------------------|--------------------------------|--------|
// | ALLOCLAB_SHARD_INDEX, ALLOCLAB_SHARD_COUNT       | any (CI matrices: deploy/)      | 1-based |
// | JOB_COMPLETION_INDEX, ALLOCLAB_SHARD_COUNT       | Kubernetes Indexed Job          | 0-based |
// | SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT      | Slurm job array (from _MIN)     | from SLURM_ARRAY_TASK_MIN |
// | CI_NODE_INDEX, CI_NODE_TOTAL                     | GitLab CI `parallel:`          | 1-based |
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/run_account.hpp"
#include "plan/plan.hpp"

namespace alloclab::lab {

inline constexpr std::size_t max_shards = 1000;

struct shard_spec {
  std::size_t index = 1;  // 1-based
  std::size_t count = 1;
  std::string source;  // how it was given: "--shard 2/3", "JOB_COMPLETION_INDEX=1 ..."
};

// Reads an environment variable (getenv in production; tests pass a map).
using env_lookup = std::function<std::optional<std::string>(const char* name)>;
env_lookup process_environment();

// "K/N" or "auto"; throws usage_error (one line) for anything else, an index outside 1..N, or a
// count outside 1..max_shards.
shard_spec parse_shard(const std::string& text, const env_lookup& env);

// What a task is expected to cost, in seconds, before anything is measured: the run passes
// its frame's estimate (expected_task_seconds, plan/frame_planner.hpp), tests their own.
using task_cost = std::function<double(const run_plan& plan, const task& t)>;

// Seconds each workload took in an earlier run (`--shard-costs`); a workload not listed is
// weighed by its tasks' task_cost.
using workload_costs = std::map<std::string, double>;

// The plan's workloads in shard order: for each shard (0-based), its workloads, in plan order.
// Throws usage_error when the plan has fewer workloads than shards.
std::vector<std::vector<std::string>> deal_workloads(const run_plan& plan, std::size_t count,
                                                     const task_cost& cost,
                                                     const workload_costs& measured = {});

// Keeps the cells of `workloads` only: their cells, their tasks (in the plan's order), the
// plan's workload lists cut to them, and the frames that still have cells.
void keep_workloads(run_plan& plan, const std::vector<std::string>& workloads);

// A shard's "shard" entry of results.json: index, count, source, workloads (this shard's), cells
// (this shard's, after the placement step), plan_cells (the whole plan's, likewise), costs (what
// the deal was weighed by). `shard_plan` is the shard's plan after settle_placement_twin.
model::shard_facts shard_summary(const shard_spec& spec, const run_plan& whole,
                                 const run_plan& shard_plan, const std::string& costs);

// The identity of a cell across shards: "frame/workload/strategy/malloc".
std::string cell_key(const cell_spec& cell);

}  // namespace alloclab::lab
