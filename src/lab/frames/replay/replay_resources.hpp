// The in-process resources a recorded trace can be replayed through (`alloclab replay
// --strategies`): one std::pmr::memory_resource per trace, serving every block of every thread.
// Each entry says whether it is thread-safe; a multi-threaded trace is refused by one that is not.
#pragma once

#include <cstdint>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "trace/trace_facts.hpp"

namespace alloclab::lab {

// A resource and whatever owns its memory (freed when the holder is destroyed).
class replay_resource {
 public:
  virtual ~replay_resource() = default;
  virtual std::pmr::memory_resource* resource() = 0;
};

struct replay_resource_entry {
  const char* name;
  const char* description;
  bool thread_safe;
  std::unique_ptr<replay_resource> (*make)(const replay_trace_facts& trace);
};

// The cell strategy of a replay through the process-wide malloc.
inline constexpr const char* replay_malloc_strategy = "malloc";

const std::vector<replay_resource_entry>& replay_resources();
const replay_resource_entry* find_replay_resource(const std::string& name);

// The arena entry's buffer: the monotonic footprint, the worst-case padding of aligned requests
// and a 25 % margin (seed 000: size an arena from the measured peak plus a margin), page-rounded.
std::uint64_t replay_arena_bytes(const replay_trace_facts& trace);

// Why `name` cannot replay this trace (empty when it can).
std::string replay_mismatch(const replay_resource_entry& entry, const replay_trace_facts& trace);

}  // namespace alloclab::lab
