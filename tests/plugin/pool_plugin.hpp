// The interface of the two test plugins (pool_plugin.cpp built twice, as
// liballoclab_pool_plugin_a.so and liballoclab_pool_plugin_b.so, with hidden
// visibility): each compiles its own copy of concurrent_multipool_resource's
// inline code and of every static in it.
#pragma once

#include <cstddef>
#include <memory_resource>

namespace alloclab {
class concurrent_multipool_resource;
}

#define ALLOCLAB_DECLARE_POOL_PLUGIN(prefix)                                                   \
  extern "C" {                                                                                 \
  alloclab::concurrent_multipool_resource* prefix##_make(std::pmr::memory_resource* upstream); \
  void prefix##_destroy(alloclab::concurrent_multipool_resource* pool);                        \
  void* prefix##_allocate(alloclab::concurrent_multipool_resource* pool, std::size_t bytes);   \
  void prefix##_deallocate(alloclab::concurrent_multipool_resource* pool, void* p,             \
                           std::size_t bytes);                                                 \
  }

ALLOCLAB_DECLARE_POOL_PLUGIN(plugin_a)
ALLOCLAB_DECLARE_POOL_PLUGIN(plugin_b)
