#include "plan/shard.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>

#include <fmt/format.h>

namespace alloclab::lab {
namespace {

// A whole number in [0, max_shards * 100], or nullopt.
std::optional<std::size_t> whole_number(const std::string& text) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  const auto [rest, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || rest != end || value > max_shards * 100)
    return std::nullopt;
  return value;
}

std::size_t number_of(const char* name, const std::string& value) {
  const std::optional<std::size_t> n = whole_number(value);
  if (!n)
    throw usage_error(fmt::format("--shard auto: {}='{}' is not a whole number", name, value));
  return *n;
}

// `index` counts from 1; `first` is the first index as the user gave it (0 for Kubernetes'
// JOB_COMPLETION_INDEX), so the refusal names the range in the user's own numbering.
shard_spec checked(std::size_t index, std::size_t count, std::string source,
                   std::size_t first = 1) {
  // "--shard 0/2: ..." as given, or "--shard auto: JOB_COMPLETION_INDEX=...: ..."
  const std::string given = source.rfind("--shard", 0) == 0 ? source : "--shard auto: " + source;
  if (count < 1 || count > max_shards)
    throw usage_error(fmt::format("{}: the count must be 1 to {}", given, max_shards));
  if (index < 1 || index > count)
    throw usage_error(fmt::format("{}: the index must be {} to {} (for {} shards)", given, first,
                                  first + count - 1, count));
  return {index, count, std::move(source)};
}

// One engine's pair of variables: index (with its base) and count.
struct engine_pair {
  const char* index;
  const char* count;
  const char* base;  // variable holding the first index, or nullptr
  std::size_t default_base;
};

shard_spec from_environment(const env_lookup& env) {
  static const engine_pair pairs[] = {
      {"ALLOCLAB_SHARD_INDEX", "ALLOCLAB_SHARD_COUNT", nullptr, 1},
      {"JOB_COMPLETION_INDEX", "ALLOCLAB_SHARD_COUNT", nullptr, 0},
      {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", 0},
      {"CI_NODE_INDEX", "CI_NODE_TOTAL", nullptr, 1}};
  for (const engine_pair& p : pairs) {
    const std::optional<std::string> index = env(p.index);
    if (!index) continue;
    const std::optional<std::string> count = env(p.count);
    if (!count)
      throw usage_error(fmt::format("--shard auto: {} is set but {} (the number of shards) is not",
                                    p.index, p.count));
    std::size_t base = p.default_base;
    std::string source = fmt::format("{}={} {}={}", p.index, *index, p.count, *count);
    if (p.base != nullptr)
      if (const std::optional<std::string> first = env(p.base)) {
        base = number_of(p.base, *first);
        source += fmt::format(" {}={}", p.base, *first);
      }
    const std::size_t i = number_of(p.index, *index);
    if (i < base)
      throw usage_error(fmt::format("--shard auto: {}: the index is below {}", source, base));
    return checked(i - base + 1, number_of(p.count, *count), source, base);
  }
  throw usage_error(
      "--shard auto: none of ALLOCLAB_SHARD_INDEX, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, "
      "CI_NODE_INDEX is set; give --shard K/N");
}

// The plan's workloads in the order their first cell appears.
std::vector<std::string> workloads_in_order(const run_plan& plan) {
  std::vector<std::string> names;
  for (const cell_spec& c : plan.cells)
    if (std::find(names.begin(), names.end(), c.workload) == names.end())
      names.push_back(c.workload);
  return names;
}

workload_costs costs_of(const run_plan& plan, const task_cost& task_seconds,
                        const workload_costs& measured) {
  workload_costs cost;
  for (const task& t : plan.schedule) cost[plan.cells.at(t.cell).workload] += task_seconds(plan, t);
  for (auto& [workload, seconds] : cost)
    if (const auto it = measured.find(workload); it != measured.end()) seconds = it->second;
  return cost;
}

void keep_named(std::vector<std::string>& names, const std::vector<std::string>& kept) {
  names.erase(std::remove_if(names.begin(), names.end(),
                             [&](const std::string& n) {
                               return std::find(kept.begin(), kept.end(), n) == kept.end();
                             }),
              names.end());
}

}  // namespace

env_lookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

shard_spec parse_shard(const std::string& text, const env_lookup& env) {
  if (text == "auto") return from_environment(env);
  const std::size_t slash = text.find('/');
  const std::optional<std::size_t> index =
      slash == std::string::npos ? std::nullopt : whole_number(text.substr(0, slash));
  const std::optional<std::size_t> count =
      slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!index || !count)
    throw usage_error(fmt::format(
        "--shard '{}' is not K/N (e.g. 2/3: the second of three shards) or auto", text));
  return checked(*index, *count, "--shard " + text);
}

std::vector<std::vector<std::string>> deal_workloads(const run_plan& plan, std::size_t count,
                                                     const task_cost& task_seconds,
                                                     const workload_costs& measured) {
  const std::vector<std::string> names = workloads_in_order(plan);
  if (names.size() < count)
    throw usage_error(fmt::format(
        "--shard: the plan has {} workload(s) and a workload's cells stay in one shard (so its "
        "comparisons share a machine); use at most {} shard(s)",
        names.size(), names.size()));
  const workload_costs cost = costs_of(plan, task_seconds, measured);
  std::vector<std::size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cost.at(names[a]) > cost.at(names[b]);
  });
  std::vector<double> load(count, 0.0);
  std::vector<std::size_t> shard_of(names.size());
  for (const std::size_t w : order) {
    const std::size_t lightest =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[w] = lightest;
    load[lightest] += cost.at(names[w]);
  }
  std::vector<std::vector<std::string>> shards(count);
  for (std::size_t w = 0; w < names.size(); ++w) shards[shard_of[w]].push_back(names[w]);
  return shards;
}

void keep_workloads(run_plan& plan, const std::vector<std::string>& kept) {
  keep_cells(plan, [&](const cell_spec& c) {
    return std::find(kept.begin(), kept.end(), c.workload) != kept.end();
  });
  keep_named(plan.workloads.lab, kept);
  keep_named(plan.workloads.heap, kept);
  keep_named(plan.workloads.memory, kept);
  plan.frames.erase(std::remove_if(plan.frames.begin(), plan.frames.end(),
                                   [&](frame f) {
                                     return std::none_of(
                                         plan.cells.begin(), plan.cells.end(),
                                         [f](const cell_spec& c) { return c.frame == f; });
                                   }),
                    plan.frames.end());
}

model::shard_facts shard_summary(const shard_spec& spec, const run_plan& whole,
                                 const run_plan& shard_plan, const std::string& costs) {
  const bool twin = !shard_plan.placement_twin.empty();
  model::shard_facts facts;
  facts.index = spec.index;
  facts.count = spec.count;
  facts.source = spec.source;
  facts.workloads = workloads_in_order(shard_plan);
  facts.cells = shard_plan.cells.size();
  for (const cell_spec& c : whole.cells) facts.plan_cells += !c.copy_cliff_removed || twin ? 1 : 0;
  facts.costs = costs;
  return facts;
}

std::string cell_key(const cell_spec& cell) {
  return fmt::format("{}/{}/{}/{}", to_string(cell.frame), cell.workload, cell.strategy,
                     cell.malloc.label);
}

}  // namespace alloclab::lab
