// concurrent_pool_loops.hpp: the concurrent pool's allocate/deallocate loops,
// compiled twice (concurrent_pool_loops.cpp): into the executable (namespace
// in_executable) and into a shared library built with -fPIC and hidden
// visibility (in_shared_library), to compare the hot path's cost in each.
#pragma once

#include <cstddef>

namespace alloclab {
class concurrent_multipool_resource;
}

#define ALLOCLAB_DECLARE_POOL_LOOPS(space)                                        \
  namespace alloclab_bench::space {                                               \
  /* `pairs` allocate + deallocate pairs of 64 bytes (alignment 16) on `pool`. */ \
  __attribute__((visibility("default"))) void pairs_on_one_pool(                  \
      alloclab::concurrent_multipool_resource& pool, std::size_t pairs);          \
  /* The same, alternating between `first` and `second` after every pair. */      \
  __attribute__((visibility("default"))) void pairs_alternating(                  \
      alloclab::concurrent_multipool_resource& first,                             \
      alloclab::concurrent_multipool_resource& second, std::size_t pairs);        \
  }

ALLOCLAB_DECLARE_POOL_LOOPS(in_executable)
ALLOCLAB_DECLARE_POOL_LOOPS(in_shared_library)
