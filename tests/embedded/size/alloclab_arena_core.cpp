// tests/embedded/size/alloclab_arena_core.cpp: alloclab::allocator<T, R>
// over the arena's core, basic_arena, with an upstream that is no
// std::pmr type: nothing of libstdc++'s memory_resource.o is linked.
#include <alloclab/allocator.hpp>
#include <alloclab/arena_resource.hpp>
#include <cstddef>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];
}

int main() {
  alloclab::arena_options options;
  options.policy = alloclab::overflow_policy::throw_bad_alloc;
  alloclab::refusing_upstream upstream;
  using arena_type = alloclab::basic_arena<alloclab::refusing_upstream>;
  arena_type arena{buffer, sizeof buffer, &upstream, options};
  alloclab::allocator<int, arena_type> allocator{&arena};
  return sum_of_squares(allocator, 100) == 328350 ? 0 : 1;
}
