// The loops of concurrent_pool_loops.hpp, in namespace ALLOCLAB_POOL_LOOPS.
#include "concurrent_pool_loops.hpp"

#include <alloclab/concurrent_multipool_resource.hpp>

#include "bench_support.hpp"

namespace alloclab_bench::ALLOCLAB_POOL_LOOPS {

namespace {
constexpr std::size_t bytes = 64;
constexpr std::size_t alignment = 16;

BENCHMARK_ALWAYS_INLINE inline void one_pair(alloclab::concurrent_multipool_resource& pool) {
  void* p = pool.allocate(bytes, alignment);
  escape(p);
  pool.deallocate(p, bytes, alignment);
}
}  // namespace

void pairs_on_one_pool(alloclab::concurrent_multipool_resource& pool, std::size_t pairs) {
  for (std::size_t i = 0; i < pairs; ++i) one_pair(pool);
}

void pairs_alternating(alloclab::concurrent_multipool_resource& first,
                       alloclab::concurrent_multipool_resource& second, std::size_t pairs) {
  for (std::size_t i = 0; i < pairs; i += 2) {
    one_pair(first);
    one_pair(second);
  }
}

}  // namespace alloclab_bench::ALLOCLAB_POOL_LOOPS
