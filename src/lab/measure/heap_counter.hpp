// Counts global operator new calls while a counting pass is active. The replacement
// operators live in heap_counter.cpp; outside a counting pass they cost one predictable branch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace alloclab::lab {

struct heap_usage {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

// Starts counting allocations made by any thread of the process.
void heap_counting_begin();
// Stops counting and returns what was allocated since heap_counting_begin().
heap_usage heap_counting_end();

/// Called with each allocation counted (only inside a counting pass). Must not allocate.
using allocation_observer = void (*)(void* context, const void* p, std::size_t bytes) noexcept;
/// Installs `observer` (nullptr removes it). Single-threaded lab: no synchronisation.
void set_allocation_observer(allocation_observer observer, void* context) noexcept;

}  // namespace alloclab::lab
