// Strategy registry: how a cell gets its memory. Each strategy builds an iteration_source
// for one workload, sized from that workload's measured footprint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/iteration_source.hpp"

namespace alloclab::lab {

// What one iteration of a workload asks of its allocator, measured by a tracking pass.
struct workload_footprint {
  std::size_t allocations = 0;                     // requests per iteration
  std::size_t bytes_requested = 0;                 // their sum
  std::size_t peak_bytes = 0;                      // most bytes live at once
  std::size_t peak_blocks = 0;                     // most blocks live at once
  std::size_t largest_request = 0;                 // biggest single request
  std::size_t monotonic_footprint = 0;             // bytes a bump arena consumes, padding included
  std::size_t suggested_arena_bytes = 0;           // footprint + margin: what arena strategies get
  std::vector<std::uint64_t> size_histogram_log2;  // requests per size band (stats/log2_histogram)
};

// How the runner must treat a strategy's upstream fallbacks.
enum class fallback_rule {
  none,             // not an arena: nothing to fall back from
  forbidden,        // any fallback or heap allocation voids the cell's numbers
  expected_warning  // the deliberate seed-000 bug: numbers reported, fallbacks shown as a warning
};

class strategy_instance : public iteration_source {
 public:
  // Upstream allocations made by the strategy's buffer so far (cumulative).
  virtual std::uint64_t upstream_fallbacks() const { return 0; }
  // Size of the strategy's own buffer, 0 when it has none.
  virtual std::size_t buffer_bytes() const { return 0; }
};

// Which side of the peer check (results/peer_verdict.hpp) a strategy is on: alloclab's own
// resources, a peer library's (foonathan/memory, Boost.Container, mimalloc's heaps, libstdc++'s
// pmr resources), or neither (the baseline std, pmr_new_delete: malloc through a virtual call,
// pmr_monotonic_undersized: seed 000's bug, kept on purpose).
enum class peer_side { alloclab, peer, neither };

struct strategy_entry {
  std::string name;
  std::string description;
  peer_side side;
  fallback_rule fallbacks;
  // Why this strategy cannot run the workload, or empty when it can.
  std::string (*not_applicable)(const workload_footprint&);
  std::unique_ptr<strategy_instance> (*make)(const workload_footprint&);
  // Whether one instance may serve several threads at once (multithreaded workloads need it).
  bool thread_safe = false;
  // Why the library the strategy needs is absent from this machine, or empty when it is
  // present (nullptr: needs nothing beyond the binary). Must not load the library.
  std::string (*not_installed)() = nullptr;
};

const std::vector<strategy_entry>& strategy_registry();
const strategy_entry* find_strategy(const std::string& name);
// Why `strategy` cannot run a workload that allocates on `threads` threads, or empty.
std::string thread_safety_reason(const strategy_entry& strategy, std::size_t threads);

// The side of the peer check (results/peer_verdict.hpp) of `strategy`, as its entry says; a name
// no entry has is neither.
peer_side side_of(const std::string& strategy);

// The baseline every ratio is taken against.
inline constexpr const char* baseline_strategy = "std";

// Seed 000's BUFFER_SIZE: NUM_ELEMENTS * sizeof(int) * 4 = 16 000 bytes.
inline constexpr std::size_t undersized_buffer_bytes = 1000 * sizeof(int) * 4;
// Node pools apply when every request fits a small fixed block.
inline constexpr std::size_t max_pool_block = 256;

}  // namespace alloclab::lab
