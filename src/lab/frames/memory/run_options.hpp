// The memory frame's own options of `alloclab run` and its sizes: what its row registers on
// `run` (add_memory_run_options, bound to its slot of run_request::frame_options) and what its
// resolve_sizes makes of them (its slot of run_plan::frame_sizes), read back by its planner,
// executor and results through memory_sizes_of.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plan/frame_slots.hpp"
#include "plan/plan.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

inline constexpr const char* memory_frame_name = "memory";  // its slots' key, as --frames spells it

struct memory_run_options {
  std::optional<std::string> memory_budget;     // --memory-budget BYTES
  std::optional<std::string> huge_table_bytes;  // --huge-table-bytes BYTES
};

// The memory budget of the budget_bursts workload, and where it came from.
struct memory_budget_choice {
  std::uint64_t bytes = 0;
  bool from_cgroup = false;  // the cgroup's limit: workers read usage from the cgroup
  std::string source;        // "--memory-budget", "default", or the cgroup and why
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(memory_budget_choice, bytes, from_cgroup, source)

struct memory_plan_sizes {
  std::size_t repetitions = 0;         // over all processes
  memory_budget_choice budget;         // budget_bursts' budget
  std::uint64_t huge_table_bytes = 0;  // huge_table's table
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(memory_plan_sizes, repetitions, budget,
                                                huge_table_bytes)

// Registers --memory-budget and --huge-table-bytes on `run` (the frame's row's add_run_options).
void add_memory_run_options(CLI::App& run, frame_slots& options);

inline const memory_plan_sizes& memory_sizes_of(const run_plan& plan) {
  return plan.frame_sizes.get<memory_plan_sizes>(memory_frame_name);
}

}  // namespace alloclab::lab
