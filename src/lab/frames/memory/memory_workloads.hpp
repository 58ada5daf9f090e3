// The memory-frame workloads: what an allocator does with memory over time, not how
// fast it is. Each runs in a fresh worker (`alloclab __memory-worker <spec JSON>`) under the
// cell's malloc:
//   budget_bursts - a service loop whose live set grows in bursts towards a memory budget and
//                   shrinks again (seed 004's random_memhigh), without a watcher (no_watcher) or
//                   with a budget_watcher that purges at the soft threshold (budget_trim);
//   huge_table    - random access over a large, long-lived table, on plain pages (plain_pages) or
//                   in a huge_page_buffer advised MADV_HUGEPAGE (huge_pages).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/catalogue.hpp"

namespace alloclab::lab {

struct memory_workload {
  std::string name;
  std::string description;
  std::vector<std::string> strategies;  // the first is the baseline
  bool every_malloc = true;  // false: measured under the run's first malloc only (mmap-backed)
};

const std::vector<memory_workload>& memory_workload_registry();
const memory_workload* find_memory_workload(const std::string& name);
// The memory workloads as the frame table hands them to --workloads and `alloclab list`.
const workload_catalogue& memory_workload_catalogue();

// Sizes. The default budget (no --memory-budget, no cgroup limit) is one the burst workload
// crosses on purpose; the table fits this machine (24 GiB, 2 cores) many times over.
inline constexpr std::uint64_t default_memory_budget_bytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t quick_memory_budget_bytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t min_memory_budget_bytes = std::uint64_t{16} << 20;
inline constexpr std::uint64_t default_huge_table_bytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t quick_huge_table_bytes = std::uint64_t{32} << 20;
inline constexpr std::size_t memory_default_repetitions = 6;  // 2 in each of 3 processes
inline constexpr std::size_t memory_quick_repetitions = 2;

// What the parent sends a memory worker.
struct memory_spec {
  std::string workload;
  std::string strategy;
  std::string malloc;  // malloc_choice::argument
  std::size_t repetitions = 1;
  std::uint64_t seed = 42;
  bool quick = false;
  std::uint64_t budget_bytes = default_memory_budget_bytes;
  bool budget_from_cgroup = false;  // the worker reads usage from its cgroup, not RSS
  std::uint64_t table_bytes = default_huge_table_bytes;
};

nlohmann::json to_json(const memory_spec& s);
// Throws std::invalid_argument (unknown workload or strategy) or nlohmann::json::exception.
memory_spec memory_spec_from_json(const nlohmann::json& j);

// Worker side, after the malloc is proven: runs the cell, returns its result document
// (budget_service.hpp, huge_table.hpp).
nlohmann::json run_memory_workload(const memory_spec& spec);

}  // namespace alloclab::lab
