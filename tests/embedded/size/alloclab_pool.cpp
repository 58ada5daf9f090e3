// tests/embedded/size/alloclab_pool.cpp: alloclab::allocator<T, R> over a
// fixed-buffer multipool_resource, never through a memory_resource pointer.
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
  alloclab::multipool_resource pool{alloclab::fixed_buffer{buffer}, options};
  alloclab::allocator<int, alloclab::multipool_resource> allocator{&pool};
  return sum_of_squares(allocator, 100) == 328350 ? 0 : 1;
}
