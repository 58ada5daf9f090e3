#include "frames/memory/memory_workloads.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frames/memory/budget_service.hpp"
#include "frames/memory/huge_table.hpp"

namespace alloclab::lab {

using json = nlohmann::json;

const std::vector<memory_workload>& memory_workload_registry() {
  static const std::vector<memory_workload> registry = {
      {"budget_bursts",
       "service loop whose live set grows in bursts to 90-105% of the room a memory budget leaves "
       "and shrinks to "
       "10-30%, with and without a budget_watcher that trims at 90% (seed 004's random_memhigh)",
       {no_watcher_strategy, budget_trim_strategy},
       true},
      {"huge_table",
       "random read-modify-writes over a large long-lived table, plain pages vs a "
       "huge_page_buffer advised MADV_HUGEPAGE (mmap-backed: measured under the first malloc)",
       {plain_pages_strategy, huge_pages_strategy},
       false},
  };
  return registry;
}

const memory_workload* find_memory_workload(const std::string& name) {
  for (const auto& w : memory_workload_registry())
    if (w.name == name) return &w;
  return nullptr;
}

namespace {

// A memory workload as `alloclab list` prints it: its description and the strategies it takes.
workload_listing memory_listing(const memory_workload& w) {
  return {w.name, fmt::format("{} [strategies: {}]", w.description, fmt::join(w.strategies, ", "))};
}

}  // namespace

const workload_catalogue& memory_workload_catalogue() {
  static const workload_catalogue catalogue{
      "memory-frame workloads (memory over time, one worker per cell; not in the default suite; "
      "--frames memory runs them all):",
      [] { return collect(memory_workload_registry(), memory_listing); }, nullptr, ""};
  return catalogue;
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(memory_spec, workload, strategy, malloc, repetitions, seed,
                                   quick, budget_bytes, budget_from_cgroup, table_bytes)

json to_json(const memory_spec& s) {
  return json(s);
}

memory_spec memory_spec_from_json(const json& j) {
  const memory_spec s = j.get<memory_spec>();
  const memory_workload* w = find_memory_workload(s.workload);
  if (w == nullptr) throw std::invalid_argument("unknown memory workload '" + s.workload + "'");
  if (std::find(w->strategies.begin(), w->strategies.end(), s.strategy) == w->strategies.end())
    throw std::invalid_argument("workload " + s.workload + " has no strategy '" + s.strategy + "'");
  if (s.repetitions == 0) throw std::invalid_argument("repetitions must be positive");
  return s;
}

json run_memory_workload(const memory_spec& spec) {
  if (spec.workload == "budget_bursts") return run_budget_service(spec);
  return run_huge_table(spec);
}

}  // namespace alloclab::lab
