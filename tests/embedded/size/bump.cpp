// tests/embedded/size/bump.cpp: the baseline, a hand-written bump allocator
// over a static buffer (what firmware writes when it has no library).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "workload.hpp"

namespace {
alignas(8) std::byte buffer[4096];
std::size_t used = 0;

template <class T>
struct bump_allocator {
  using value_type = T;
  bump_allocator() = default;
  template <class U>
  bump_allocator(const bump_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    const std::size_t start = (used + alignof(T) - 1) & ~(alignof(T) - 1);
    if (n > (sizeof buffer - start) / sizeof(T)) std::abort();
    used = start + n * sizeof(T);
    return reinterpret_cast<T*>(buffer + start);
  }
  void deallocate(T*, std::size_t) noexcept {}
  template <class U>
  bool operator==(const bump_allocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const bump_allocator<U>&) const noexcept {
    return false;
  }
};
}  // namespace

int main() {
  return sum_of_squares(bump_allocator<int>{}, 100) == 328350 ? 0 : 1;
}
