// One test plugin (see pool_plugin.hpp); ALLOCLAB_PLUGIN_PREFIX names it.
#include "pool_plugin.hpp"

#include <alloclab/concurrent_multipool_resource.hpp>

#define ALLOCLAB_PLUGIN_JOIN2(a, b) a##b
#define ALLOCLAB_PLUGIN_JOIN(a, b) ALLOCLAB_PLUGIN_JOIN2(a, b)
#define ALLOCLAB_PLUGIN(name) ALLOCLAB_PLUGIN_JOIN(ALLOCLAB_PLUGIN_PREFIX, name)
#define ALLOCLAB_PLUGIN_EXPORT __attribute__((visibility("default")))

using alloclab::concurrent_multipool_resource;

extern "C" {
ALLOCLAB_PLUGIN_EXPORT concurrent_multipool_resource* ALLOCLAB_PLUGIN(_make)(
    std::pmr::memory_resource* upstream) {
  return new concurrent_multipool_resource{upstream};
}
ALLOCLAB_PLUGIN_EXPORT void ALLOCLAB_PLUGIN(_destroy)(concurrent_multipool_resource* pool) {
  delete pool;
}
ALLOCLAB_PLUGIN_EXPORT void* ALLOCLAB_PLUGIN(_allocate)(concurrent_multipool_resource* pool,
                                                        std::size_t bytes) {
  return pool->allocate(bytes, 8);
}
ALLOCLAB_PLUGIN_EXPORT void ALLOCLAB_PLUGIN(_deallocate)(concurrent_multipool_resource* pool,
                                                         void* p, std::size_t bytes) {
  pool->deallocate(p, bytes, 8);
}
}
