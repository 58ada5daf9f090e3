// The heap as tests see it: new/delete, except that absurd sizes fail with
// std::bad_alloc deterministically. Sanitizer runtimes abort on such sizes
// instead of throwing, which would hide what the resource under test does.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <new>

namespace alloclab::testing {

class test_heap_resource final : public std::pmr::memory_resource {
 public:
  // 1 TiB; 1 GiB where std::size_t has 32 bits.
  static constexpr std::size_t largest_request = std::size_t{1}
                                                 << (sizeof(std::size_t) < 8 ? 30 : 40);

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (bytes > largest_request) throw std::bad_alloc();
    return std::pmr::new_delete_resource()->allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

inline std::pmr::memory_resource* test_heap() {
  static test_heap_resource heap;
  return &heap;
}

}  // namespace alloclab::testing
