// Counts global operator new calls while a counting pass is active. The replacement
// operators live in heap_counter.cpp; outside a counting pass they cost one predictable branch.
#pragma once

#include <cstdint>

namespace alloclab::lab {

struct heap_usage {
  std::uint64_t allocations = 0;
  std::uint64_t bytes = 0;
};

class address_recorder;

// Starts counting on the calling thread's process (single-threaded lab). With a recorder, the
// address of every counted block is noted in it too.
void heap_counting_begin(address_recorder* recorder = nullptr);
// Stops counting and returns what was allocated since heap_counting_begin().
heap_usage heap_counting_end();

}  // namespace alloclab::lab
