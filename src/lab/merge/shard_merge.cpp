#include "merge/shard_merge.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "results/environment.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string name_of(const merge_input& in) {
  const shard_spec& s = in.shard->shard;
  return fmt::format("'{}' (shard {}/{})", in.path, s.index, s.count);
}

bool twin_measured(const merge_input& in) {
  const auto& twin = in.results.config.placement_twin;
  return twin && *twin;
}

// Same count, same plan, every index once.
void check_complete(const std::vector<const merge_input*>& shards) {
  const merge_input& first = *shards.front();
  const std::size_t count = first.shard->shard.count;
  const auto& deal = first.shard->deal;
  const json plan = plan_to_json(first.shard->whole_plan);
  std::map<std::size_t, const merge_input*> by_index;
  for (const merge_input* in : shards) {
    const shard_spec& s = in->shard->shard;
    if (const auto diff = differences(plan, plan_to_json(in->shard->whole_plan)); !diff.empty())
      throw usage_error(fmt::format("{} and {} are shards of different configurations ({})",
                                    name_of(first), name_of(*in), diff.front().substr(0, 200)));
    if (s.count != count || in->shard->deal != deal)
      throw usage_error(
          fmt::format("{} and {} split the plan differently; merge shards of one "
                      "--shard count and one --shard-costs file",
                      name_of(first), name_of(*in)));
    if (const auto [at, fresh] = by_index.emplace(s.index, in); !fresh)
      throw usage_error(fmt::format("overlapping shards: {} and {} are the same shard",
                                    name_of(*at->second), name_of(*in)));
  }
  std::vector<std::string> missing;
  for (std::size_t k = 1; k <= count; ++k)
    if (by_index.count(k) == 0) missing.push_back(fmt::format("{}/{}", k, count));
  if (!missing.empty())
    throw usage_error(fmt::format("missing shard(s) {}: a merge needs all {} shards of the plan",
                                  fmt::join(missing, ", "), count));
}

bool same_cell(const measurement_record& r, const cell_spec& c) {
  return r.frame == to_string(c.frame) && r.workload == c.workload && r.strategy == c.strategy &&
         r.malloc == c.malloc.label;
}

// The cells of the whole plan that `workloads` deal a shard.
std::vector<std::size_t> dealt_cells(const run_plan& whole,
                                     const std::vector<std::string>& workloads, bool twin) {
  std::vector<std::size_t> cells;
  for (std::size_t i = 0; i < whole.cells.size(); ++i) {
    const cell_spec& c = whole.cells[i];
    if (std::find(workloads.begin(), workloads.end(), c.workload) != workloads.end() &&
        (twin || !c.copy_cliff_removed))
      cells.push_back(i);
  }
  return cells;
}

// The task that measured part `part` of `cell`: the plan's own when it planned that process, else
// the one a budgeted run's stop rule added (schedule/budget_run.cpp seeds it the same way).
task task_for(const run_plan& whole, std::size_t cell, std::size_t part) {
  const task* first = nullptr;
  for (const task& t : whole.schedule) {
    if (t.cell != cell) continue;
    if (t.part == part) return t;
    if (first == nullptr) first = &t;
  }
  return {cell, part, first != nullptr ? first->repetitions : 0, whole.sizes.seed + part};
}

// One task of the whole plan per record of `in`. A budgeted run gives each cell as many processes
// as its stop rule asks for, more or fewer than the plan's first round, so a record is placed by
// its own cell and part; every cell dealt to the shard must hold a process, and no part twice.
std::vector<task> tasks_of(const merge_input& in, const run_plan& whole,
                           const std::vector<std::string>& workloads, bool twin) {
  const std::vector<std::size_t> cells = dealt_cells(whole, workloads, twin);
  const std::vector<measurement_record>& records = in.shard->records.records;
  std::vector<task> tasks;
  std::set<std::pair<std::size_t, std::size_t>> seen;  // cell, part
  for (const measurement_record& r : records) {
    const auto cell = std::find_if(cells.begin(), cells.end(),
                                   [&](std::size_t c) { return same_cell(r, whole.cells[c]); });
    if (cell == cells.end() || !seen.emplace(*cell, r.part).second) break;
    tasks.push_back(task_for(whole, *cell, r.part));
  }
  const bool every_cell = std::all_of(cells.begin(), cells.end(), [&](std::size_t c) {
    const auto at = seen.lower_bound({c, 0});
    return at != seen.end() && at->first == c;
  });
  if (tasks.size() != records.size() || !every_cell)
    throw usage_error(
        fmt::format("{} does not hold the cells its index deals it ({} records for "
                    "{} cells of workloads {})",
                    name_of(in), records.size(), cells.size(), fmt::join(workloads, ", ")));
  return tasks;
}

model::merged_shard shard_entry(const merge_input& in) {
  const shard_file& f = *in.shard;
  return {f.shard.index,
          f.shard.count,
          f.shard.source,
          in.path,
          f.context.command_line,
          f.context.created_utc,
          f.records.duration_seconds};
}

}  // namespace

model::document merge_shards(const std::vector<const merge_input*>& unordered,
                             const std::string& command_line, const std::string& created_utc) {
  std::vector<const merge_input*> shards = unordered;
  check_complete(shards);
  // The merged results are judged by this binary's code: it must be the shards' build.
  const build_identity own = build_identity_of(describe_environment(current_build()));
  if (const auto diff = differences(build_identity_of(shards.front()->results.environment), own);
      !diff.empty())
    throw usage_error(
        fmt::format("{} was built differently from this alloclab ({}); merge with "
                    "the alloclab that ran the shards: it judges the merged cells",
                    name_of(*shards.front()), diff.front().substr(0, 200)));
  std::sort(shards.begin(), shards.end(), [](const merge_input* a, const merge_input* b) {
    return a->shard->shard.index < b->shard->shard.index;
  });
  const run_plan& whole = shards.front()->shard->whole_plan;
  const bool twin = twin_measured(*shards.front()) && !whole.placement_twin.empty();
  const auto& dealt = shards.front()->shard->deal;
  if (dealt.size() != shards.size())
    throw usage_error(fmt::format("{} records a deal of {} shards, not {}",
                                  name_of(*shards.front()), dealt.size(), shards.size()));

  std::vector<std::pair<task, const measurement_record*>> measured;
  run_records merged;
  model::merge_facts entries;
  for (const merge_input* in : shards) {
    const std::vector<task> tasks =
        tasks_of(*in, whole, dealt.at(in->shard->shard.index - 1), twin);
    for (std::size_t k = 0; k < tasks.size(); ++k)
      measured.emplace_back(tasks[k], &in->shard->records.records[k]);
    for (const auto& [frame_name, facts] : in->shard->records.frame_facts.items())
      merged.frame_facts[frame_name].merge_patch(facts);
    merged.duration_seconds += in->shard->records.duration_seconds;
    entries.shards.push_back(shard_entry(*in));
  }
  // The merged schedule is what ran, cell by cell, each cell's processes in order.
  std::sort(measured.begin(), measured.end(), [](const auto& a, const auto& b) {
    return std::pair{a.first.cell, a.first.part} < std::pair{b.first.cell, b.first.part};
  });
  run_plan plan = whole;
  plan.schedule.clear();
  for (const auto& [t, record] : measured) {
    plan.schedule.push_back(t);
    merged.records.push_back(*record);
  }
  if (!twin) drop_placement_twin(plan);

  results_context context = shards.front()->shard->context;
  context.command_line = command_line;
  context.created_utc = created_utc;
  context.merged = std::move(entries);
  model::document results = build_results(plan, merged, context);
  results.environment = shards.front()->results.environment;
  return results;
}

}  // namespace alloclab::lab
