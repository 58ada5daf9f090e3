// Builds against the installed (or add_subdirectory'd) alloclab headers.
#include <alloclab/alloclab.hpp>

#include <vector>

int main() {
  alloclab::inline_arena<1024> arena{std::pmr::null_memory_resource()};
  std::vector<int, alloclab::allocator<int, alloclab::arena_resource>> v{
      alloclab::allocator<int, alloclab::arena_resource>{&arena}};
  v.reserve(16);
  for (int i = 0; i < 16; ++i) v.push_back(i);
  return v.back() == 15 && arena.upstream_allocations() == 0 ? 0 : 1;
}
