// The heap-study workloads (seed 003): malloc-level kernels run through the process-wide
// malloc, one isolated worker per (workload, malloc) cell. Unlike the lab workloads they take no
// in-process strategy: their only strategy is "malloc" (the strategy axis is n/a for them).
#pragma once

#include <string>
#include <vector>

#include "frames/heap/kernels.hpp"
#include "workloads/size_distribution.hpp"
#include "plan/plan.hpp"
#include "workloads/catalogue.hpp"

namespace alloclab::lab {

struct heap_workload {
  std::string name;  // <kernel>_<distribution>[_pages], e.g. fifo_lognormal, fifo_lognormal_pages
  std::string description;
  alloclab::heap::kernel_kind kernel;
  alloclab::heap::size_dist dist;
  // once: seed 003's method, one write per block; every_page: the page-touching variant, whose
  // cost includes first-touch faults and cache misses of every page (docs/heap-study.md).
  alloclab::heap::touch_mode touch = alloclab::heap::touch_mode::once;
};

// Every kernel x distribution (seed's method), then the same with every page touched (_pages),
// kernels in seed order (fifo, lifo, xthread).
const std::vector<heap_workload>& heap_workload_registry();
const heap_workload* find_heap_workload(const std::string& name);
// "fifo", "lifo", "xthread": the family's three workloads by seed 003's method; "fifo_pages",
// ...: the three page-touching ones; empty for any other name.
std::vector<std::string> heap_workload_family(const std::string& name);
// The heap-study workloads as the frame table hands them to --workloads and `alloclab list`.
const workload_catalogue& heap_workload_catalogue();

// Heap-workload sizes: seed 003 ran M = 10 000 batches of 100, 5 times; we run 6 (2 per process).
// quick is a smoke test.
inline constexpr std::size_t heap_default_iterations = 10'000;
inline constexpr std::size_t heap_default_repetitions = 6;  // 2 in each of 3 processes
inline constexpr std::size_t heap_quick_iterations = 300;
inline constexpr std::size_t heap_quick_repetitions = 2;

}  // namespace alloclab::lab
