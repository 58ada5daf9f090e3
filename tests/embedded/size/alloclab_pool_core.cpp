// tests/embedded/size/alloclab_pool_core.cpp: alloclab::allocator<T, R> over
// the multipool's core, basic_multipool, on a fixed buffer with an upstream
// that is no std::pmr type: nothing of libstdc++'s memory_resource.o is linked.
#include <alloclab/allocator.hpp>
#include <alloclab/multipool_resource.hpp>
#include <cstddef>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[8192];
}

int main() {
  alloclab::multipool_options options;
  options.first_chunk_bytes = 512;
  alloclab::refusing_upstream oversize;
  using pool_type = alloclab::basic_multipool<alloclab::refusing_upstream>;
  pool_type pool{alloclab::fixed_buffer{buffer}, options, &oversize};
  alloclab::allocator<int, pool_type> allocator{&pool};
  return sum_of_squares(allocator, 100) == 328350 ? 0 : 1;
}
