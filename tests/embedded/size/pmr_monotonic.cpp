// tests/embedded/size/pmr_monotonic.cpp: the standard's answer,
// std::pmr::monotonic_buffer_resource on a static buffer.
#include <cstddef>
#include <memory_resource>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];
}

int main() {
  std::pmr::monotonic_buffer_resource arena{buffer, sizeof buffer,
                                            std::pmr::null_memory_resource()};
  return sum_of_squares(std::pmr::polymorphic_allocator<int>{&arena}, 100) == 328350 ? 0 : 1;
}
