// The lab's third axis: which process-wide malloc a cell runs under (`--malloc`).
//
// Plain glibc cells of lab workloads run in the lab process itself. Every other choice (another
// allocator, a glibc tuning variant, a user-supplied library) runs in a child worker started
// with its LD_PRELOAD / environment, which proves the allocator live before it measures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "process/liveness.hpp"
#include "process/malloc_registry.hpp"

namespace alloclab::lab {

struct malloc_choice {
  std::string label;     // name in results and reports: registry name, or "custom:<file name>"
  std::string argument;  // what a worker's --malloc gets: registry name, or the library path
  const alloclab::heap::malloc_entry* entry = nullptr;  // null for a custom library
  std::string preload_path;                             // custom only: the validated library
  bool named = true;    // false when selected by "all" rather than by name
  std::string missing;  // non-empty: not installed here (the reason, one line)

  bool custom() const { return entry == nullptr; }
  // Plain glibc, no preload and no tuning: may be measured inside the lab process.
  bool plain_glibc() const;
};

inline constexpr const char* native_malloc = "glibc";

// Resolves --malloc values: registry names, "all" (every registry entry), or a path to a
// shared library (validated: a bogus path or a library that does not define malloc and free is
// a usage_error). Empty means glibc. Registry order, then custom libraries in the given order.
// In a sanitized build anything but plain glibc is a usage_error: AddressSanitizer owns malloc.
// Test hook: ALLOCLAB_TEST_HIDE_MALLOC=name[,name] makes those entries look not installed.
std::vector<malloc_choice> resolve_mallocs(const std::vector<std::string>& requested,
                                           bool sanitized);

// The test hook above: whether ALLOCLAB_TEST_HIDE_MALLOC names `name` (a registry name).
bool malloc_hidden_by_test_hook(std::string_view name);

// The worker's environment for a choice (LD_PRELOAD, tuning variables set or removed).
alloclab::heap::worker_env environment_for(const malloc_choice& choice);

// Inside a process: is `choice` the live allocator?
alloclab::heap::live_allocator prove_choice(const malloc_choice& choice);

}  // namespace alloclab::lab
