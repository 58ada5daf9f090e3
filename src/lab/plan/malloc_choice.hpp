// The lab's third axis: which process-wide malloc a cell runs under (`--malloc`).
//
// Plain glibc cells of lab workloads run in the lab process itself. Every other choice (another
// allocator, a glibc tuning variant, a user-supplied library) runs in a child worker started
// with its LD_PRELOAD / environment, which proves the allocator live before it measures.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mallocs/liveness.hpp"
#include "mallocs/knobs.hpp"
#include "mallocs/malloc_table.hpp"

namespace alloclab::lab {

struct malloc_choice {
  std::string label;     // name in results and reports: registry name, or "custom:<file name>"
  std::string argument;  // what a worker's --malloc gets: registry name, or the library path
  const alloclab::mallocs::malloc_entry* entry = nullptr;  // null for a custom library
  std::string preload_path;                                // custom only: the validated library
  bool named = true;    // false when selected by "all" rather than by name
  std::string missing;  // non-empty: not installed here (the reason, one line)
  std::vector<alloclab::mallocs::knob_setting>
      knobs;  // a knob variant's settings (replay --variants)

  // The registry name a worker proves live ("custom" for a library), whatever the label.
  std::string registry_name() const;
  // The knob variant this choice runs: its registry malloc and knobs (no knobs: the defaults).
  alloclab::mallocs::variant knob_variant() const;

  bool custom() const { return entry == nullptr; }
  // Plain glibc, no preload and no tuning: may be measured inside the lab process.
  bool plain_glibc() const;
};

inline constexpr const char* native_malloc = "glibc";

// Resolves --malloc values: registry names, "all" (every registry entry), or a path to a
// shared library (validated: a bogus path or a library that does not define malloc and free is
// a usage_error). Empty means glibc. Registry order, then custom libraries in the given order.
// In a sanitized build anything but plain glibc is a usage_error: AddressSanitizer owns malloc.
// A malloc a test hook hides (process/hooks.hpp) looks not installed.
std::vector<malloc_choice> resolve_mallocs(const std::vector<std::string>& requested,
                                           bool sanitized);

// The text of --variants, parsed (mallocs/knobs.hpp); bad text is a usage_error.
std::vector<alloclab::mallocs::variant> parse_knob_variants(const std::string& text);

// Adds a choice per knob variant, after the malloc it varies, labelled as the variant
// ("jemalloc dirty_decay_ms=0"). Each variant's malloc must be a registry malloc among `chosen`,
// else a usage_error.
std::vector<malloc_choice> add_knob_variants(std::vector<malloc_choice> chosen,
                                             std::vector<alloclab::mallocs::variant> variants);

// The worker's environment for a choice (LD_PRELOAD, tuning variables set or removed, a knob
// variant's knobs set).
alloclab::mallocs::worker_env environment_for(const malloc_choice& choice);

// Inside a process: is `choice` the live allocator?
alloclab::mallocs::live_allocator prove_choice(const malloc_choice& choice);

}  // namespace alloclab::lab
