// tests/embedded/size/pmr_bump.cpp: the bump of bump.cpp as a
// std::pmr::memory_resource, used through polymorphic_allocator: what deriving
// from memory_resource costs by itself.
#include <cstddef>
#include <memory_resource>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];

class bump_resource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    const std::size_t start = (used_ + alignment - 1) & ~(alignment - 1);
    used_ = start + bytes;
    return buffer + start;
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::size_t used_ = 0;
};
}  // namespace

int main() {
  bump_resource bump;
  return sum_of_squares(std::pmr::polymorphic_allocator<int>{&bump}, 100) == 328350 ? 0 : 1;
}
