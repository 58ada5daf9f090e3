// tests/embedded/size/alloclab_fixed_pool_core.cpp: alloclab::allocator<T, R>
// over the fixed-size pool's core, basic_pool, on a fixed buffer with an
// upstream that is no std::pmr type: nothing of memory_resource.o is linked.
// Each buffer the vector grows through (at most 128 ints) fits one 512-byte
// block.
#include <alloclab/allocator.hpp>
#include <alloclab/pool_resource.hpp>
#include <cstddef>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];
}

int main() {
  alloclab::refusing_upstream oversize;
  using pool_type = alloclab::basic_pool<alloclab::refusing_upstream>;
  pool_type pool{512, alloclab::fixed_buffer{buffer}, {}, &oversize};
  alloclab::allocator<int, pool_type> allocator{&pool};
  return sum_of_squares(allocator, 100) == 328350 ? 0 : 1;
}
