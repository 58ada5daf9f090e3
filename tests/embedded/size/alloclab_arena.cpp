// tests/embedded/size/alloclab_arena.cpp: alloclab::allocator<T, R> over an
// arena_resource on a static buffer, never through a memory_resource pointer.
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <alloclab/null_resource.hpp>
#include <cstddef>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];
}

int main() {
  alloclab::arena_options options;
  options.policy = alloclab::overflow_policy::throw_bad_alloc;
  alloclab::arena_resource arena{buffer, sizeof buffer, alloclab::null_resource(), options};
  alloclab::allocator<int, alloclab::arena_resource> allocator{&arena};
  return sum_of_squares(allocator, 100) == 328350 ? 0 : 1;
}
