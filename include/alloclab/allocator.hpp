// alloclab/allocator.hpp: a non-virtual STL allocator over any resource.
//
// `allocator<T, Resource>` holds a pointer to a concrete resource and calls
// its non-virtual `allocate`/`deallocate` members directly, so the compiler
// can inline an arena's pointer bump into `push_back`. With
// `Resource = std::pmr::memory_resource` it behaves like
// `std::pmr::polymorphic_allocator` (virtual dispatch).
//
// The Resource concept (every alloclab resource and std::pmr::memory_resource):
//
// | expression                 | meaning                                        |
// |----------------------------|------------------------------------------------|
// | `r.allocate(n, a)`         | `n` bytes aligned to `a`, or throws            |
// | `r.deallocate(p, n, a)`    | returns a block with the same `n` and `a`      |
//
// Allocator traits, and why:
//
// | trait                                      | value | reason                                   |
// |--------------------------------------------|-------|------------------------------------------|
// | `is_always_equal`                          | false | two allocators are equal iff they share a resource |
// | `propagate_on_container_copy_assignment`   | false | a container keeps the resource it was built with |
// | `propagate_on_container_move_assignment`   | true  | moved memory stays with the resource that owns it: O(1), no element copies |
// | `propagate_on_container_swap`              | true  | swapping containers on different resources is defined |
// | `select_on_container_copy_construction`    | same resource | a copy lives where its source lives |
//
// Example:
//   #include <alloclab/allocator.hpp>
//   #include <alloclab/arena_resource.hpp>
//   #include <memory_resource>
//   #include <vector>
//
//   int main() {
//     alignas(std::max_align_t) std::byte buffer[8192];
//     alloclab::arena_resource arena{buffer, sizeof buffer, std::pmr::null_memory_resource()};
//     using alloc = alloclab::allocator<int, alloclab::arena_resource>;
//     std::vector<int, alloc> values{alloc{&arena}};  // no virtual call per allocation
//     values.reserve(1000);
//     for (int i = 0; i < 1000; ++i) values.push_back(i);
//     return values.get_allocator().resource() == &arena && arena.used() >= 4000 ? 0 : 1;
//   }
#pragma once

#include <cstddef>
#include <limits>
#include <memory_resource>
#include <new>
#include <type_traits>

namespace alloclab {

template <class T, class Resource = std::pmr::memory_resource>
class allocator {
 public:
  using value_type = T;
  using resource_type = Resource;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using is_always_equal = std::false_type;
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  template <class U>
  struct rebind {
    using other = allocator<U, Resource>;
  };

  explicit allocator(Resource* resource) noexcept : resource_(resource) {}
  template <class U>
  allocator(const allocator<U, Resource>& other) noexcept : resource_(other.resource()) {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > max_size()) throw std::bad_array_new_length();
    return static_cast<T*>(resource_->allocate(n * sizeof(T), alignof(T)));
  }

  void deallocate(T* p, std::size_t n) noexcept {
    resource_->deallocate(p, n * sizeof(T), alignof(T));
  }

  static constexpr std::size_t max_size() noexcept {
    return std::numeric_limits<std::size_t>::max() / sizeof(T);
  }

  allocator select_on_container_copy_construction() const noexcept { return *this; }
  Resource* resource() const noexcept { return resource_; }

 private:
  Resource* resource_;
};

template <class T, class U, class Resource>
bool operator==(const allocator<T, Resource>& a, const allocator<U, Resource>& b) noexcept {
  return a.resource() == b.resource();
}

template <class T, class U, class Resource>
bool operator!=(const allocator<T, Resource>& a, const allocator<U, Resource>& b) noexcept {
  return !(a == b);
}

}  // namespace alloclab
