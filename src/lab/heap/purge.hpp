// Returning freed memory to the OS: each allocator's own purge call, found at run time with
// dlsym(RTLD_DEFAULT, ...) so this library links against none of them.
#pragma once

#include <string>

namespace alloclab::heap {

struct purge_result {
  std::string method;      ///< what was called, e.g. "malloc_trim(0)"
  bool available = false;  ///< the entry point was found and called
  int rc = 0;              ///< its return value where it has one (0 otherwise)
};

using purge_fn = purge_result (*)();

/// glibc: malloc_trim(0). rc = 1 when memory was released, 0 otherwise.
purge_result purge_glibc();
/// jemalloc: mallctl("thread.tcache.flush") then mallctl("arena.4096.purge"), 4096 being
/// MALLCTL_ARENAS_ALL in jemalloc 5.x. rc = the purge call's errno-style result (0 = ok).
purge_result purge_jemalloc();
/// mimalloc: mi_collect(true).
purge_result purge_mimalloc();
/// gperftools tcmalloc: MallocExtension_ReleaseFreeMemory().
purge_result purge_tcmalloc();
/// oneTBB tbbmalloc: scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS = 0, nullptr).
/// rc: 0 = TBBMALLOC_OK, 4 = TBBMALLOC_NO_EFFECT.
purge_result purge_tbbmalloc();

}  // namespace alloclab::heap
