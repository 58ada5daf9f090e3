// alloclab/allocator.hpp: a non-virtual STL allocator over any resource.
//
// `allocator<T, Resource>` holds a pointer to a concrete resource and calls
// its non-virtual `allocate`/`deallocate` members directly, so the compiler
// can inline an arena's pointer bump into `push_back`. With
// `Resource = std::pmr::memory_resource` it behaves like
// `std::pmr::polymorphic_allocator` (virtual dispatch) and default-constructs
// on `get_default_resource()`.
//
// The Resource concept (every alloclab resource and std::pmr::memory_resource):
//
// | expression                 | meaning                                        |
// |----------------------------|------------------------------------------------|
// | `r.allocate(n, a)`         | `n` bytes aligned to `a`, or throws            |
// | `r.deallocate(p, n, a)`    | returns a block with the same `n` and `a`; does not throw (alloclab's never do) |
//
// It follows polymorphic_allocator's model: a container keeps the resource
// it was built with for life, so assignment and swap never move memory from
// a scratch arena into a long-lived container. A copy over memory_resource
// goes to the default resource, as polymorphic_allocator's does; over a
// concrete Resource it stays on the source's resource (copy such a container
// out of a scope with an explicit allocator). Allocator traits, and why:
//
// | trait                                      | value | reason                                   |
// |--------------------------------------------|-------|------------------------------------------|
// | `is_always_equal`                          | false | equal iff the resources are (`is_equal` for memory_resource types, else the same object) |
// | `propagate_on_container_copy_assignment`   | false | a container keeps the resource it was built with |
// | `propagate_on_container_move_assignment`   | false | same: between unequal resources the elements are moved one by one into the target's memory; between equal ones the buffer is stolen |
// | `propagate_on_container_swap`              | false | same: swapping containers on unequal resources is undefined, as for std::pmr |
// | `select_on_container_copy_construction`    | default resource over memory_resource; else the same resource | over memory_resource as polymorphic_allocator: a copy of a scratch container does not inherit the scratch arena; a concrete Resource has no default, so a copy lives where its source lives |
//
// `construct` does uses-allocator construction, as polymorphic_allocator
// does: an element that takes an allocator (`std::pmr::string`, a nested
// container on `alloclab::allocator`, either half of a `std::pair`) is built
// on the same resource. Over a resource derived from memory_resource, the
// allocator converts to `std::pmr::polymorphic_allocator` for that purpose.
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
#include <memory>
#include <memory_resource>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "failure.hpp"

namespace alloclab {

namespace detail {

template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};

// The arguments that build a T with `alloc` by uses-allocator construction
// (C++20's uses_allocator_construction_args, for one non-pair T).
template <class T, class Alloc, class... Args>
auto uses_allocator_args(const Alloc& alloc, Args&&... args) {
  if constexpr (!std::uses_allocator_v<T, Alloc>) {
    return std::forward_as_tuple(std::forward<Args>(args)...);
  } else if constexpr (std::is_constructible_v<T, std::allocator_arg_t, const Alloc&, Args...>) {
    return std::tuple<std::allocator_arg_t, const Alloc&, Args&&...>(std::allocator_arg, alloc,
                                                                     std::forward<Args>(args)...);
  } else {
    static_assert(std::is_constructible_v<T, Args..., const Alloc&>,
                  "uses-allocator construction: T takes the allocator in no known position");
    return std::tuple<Args&&..., const Alloc&>(std::forward<Args>(args)..., alloc);
  }
}

template <class T, class Alloc, class Tuple>
auto uses_allocator_tuple(const Alloc& alloc, Tuple&& args) {
  return std::apply(
      [&](auto&&... xs) {
        return uses_allocator_args<T>(alloc, std::forward<decltype(xs)>(xs)...);
      },
      std::forward<Tuple>(args));
}

}  // namespace detail

template <class T, class Resource = std::pmr::memory_resource>
class allocator {
 public:
  using value_type = T;
  using resource_type = Resource;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using is_always_equal = std::false_type;
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::false_type;
  using propagate_on_container_swap = std::false_type;

  template <class U>
  struct rebind {
    using other = allocator<U, Resource>;
  };

  // On get_default_resource(); only where Resource is memory_resource.
  template <class R = Resource,
            std::enable_if_t<std::is_same_v<R, std::pmr::memory_resource>, int> = 0>
  allocator() noexcept : resource_(std::pmr::get_default_resource()) {}
  explicit allocator(Resource* resource) noexcept : resource_(resource) {}
  template <class U>
  allocator(const allocator<U, Resource>& other) noexcept : resource_(other.resource()) {}

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > max_size()) fail<std::bad_array_new_length>("alloclab::allocator: size overflows");
    return static_cast<T*>(resource_->allocate(n * sizeof(T), alignof(T)));
  }

  void deallocate(T* p, std::size_t n) noexcept {
    resource_->deallocate(p, n * sizeof(T), alignof(T));
  }

  // Uses-allocator construction (see the top of this file).
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (detail::is_pair<U>::value) {
      construct_pair(p, std::forward<Args>(args)...);
    } else {
      std::apply(
          [p](auto&&... xs) { ::new (static_cast<void*>(p)) U(std::forward<decltype(xs)>(xs)...); },
          detail::uses_allocator_args<U>(*this, std::forward<Args>(args)...));
    }
  }

  template <class U>
  void destroy(U* p) noexcept {
    p->~U();
  }

  // Lets std::pmr types (std::pmr::string, ...) be built on the same resource.
  template <class U, class R = Resource,
            std::enable_if_t<std::is_convertible_v<R*, std::pmr::memory_resource*>, int> = 0>
  operator std::pmr::polymorphic_allocator<U>() const noexcept {
    return std::pmr::polymorphic_allocator<U>(resource_);
  }

  static constexpr std::size_t max_size() noexcept {
    return std::numeric_limits<std::size_t>::max() / sizeof(T);
  }

  // See the traits table at the top of this file.
  allocator select_on_container_copy_construction() const noexcept {
    if constexpr (std::is_same_v<Resource, std::pmr::memory_resource>) {
      return allocator(std::pmr::get_default_resource());
    } else {
      return *this;
    }
  }
  Resource* resource() const noexcept { return resource_; }

 private:
  template <class A, class B, class X, class Y>
  void construct_pair(std::pair<A, B>* p, std::piecewise_construct_t, X&& x, Y&& y) {
    ::new (static_cast<void*>(p)) std::pair<A, B>(
        std::piecewise_construct, detail::uses_allocator_tuple<A>(*this, std::forward<X>(x)),
        detail::uses_allocator_tuple<B>(*this, std::forward<Y>(y)));
  }
  template <class A, class B>
  void construct_pair(std::pair<A, B>* p) {
    construct_pair(p, std::piecewise_construct, std::tuple<>(), std::tuple<>());
  }
  template <class A, class B, class U, class V>
  void construct_pair(std::pair<A, B>* p, U&& u, V&& v) {
    construct_pair(p, std::piecewise_construct, std::forward_as_tuple(std::forward<U>(u)),
                   std::forward_as_tuple(std::forward<V>(v)));
  }
  template <class A, class B, class U, class V>
  void construct_pair(std::pair<A, B>* p, const std::pair<U, V>& from) {
    construct_pair(p, std::piecewise_construct, std::forward_as_tuple(from.first),
                   std::forward_as_tuple(from.second));
  }
  template <class A, class B, class U, class V>
  void construct_pair(std::pair<A, B>* p, std::pair<U, V>&& from) {
    construct_pair(p, std::piecewise_construct, std::forward_as_tuple(std::move(from.first)),
                   std::forward_as_tuple(std::move(from.second)));
  }

  Resource* resource_;
};

namespace detail {
// memory_resource::is_equal where the resources have it, identity otherwise.
template <class Resource>
bool same_resource(Resource* a, Resource* b) noexcept {
  if (a == b) return true;
  if constexpr (std::is_convertible_v<Resource*, const std::pmr::memory_resource*>) {
    return a != nullptr && b != nullptr && a->is_equal(*b);
  } else {
    return false;
  }
}
}  // namespace detail

template <class T, class U, class Resource>
bool operator==(const allocator<T, Resource>& a, const allocator<U, Resource>& b) noexcept {
  return detail::same_resource(a.resource(), b.resource());
}

template <class T, class U, class Resource>
bool operator!=(const allocator<T, Resource>& a, const allocator<U, Resource>& b) noexcept {
  return !(a == b);
}

}  // namespace alloclab
