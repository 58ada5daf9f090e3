// Returning freed memory to the OS, for the heap study's memory figures: the live malloc's own
// purge call, as alloclab/allocator_purge.hpp finds it (whichever allocator defines `malloc` in
// this process, LD_PRELOADed or not; nothing is linked at build time).
#pragma once

#include <string>

namespace alloclab::mallocs {

struct purge_result {
  std::string method;      ///< what was called, e.g. "glibc malloc_trim(0)"; "none" and why
  bool available = false;  ///< a purge entry point of the live malloc was found and called
  int rc = 0;              ///< 0 when it reported success, 1 when it reported an error
};

/// Purges the live malloc (allocator_purge::find().run()).
purge_result purge_live_malloc();

}  // namespace alloclab::mallocs
