// alloclab/unique_ptr.hpp: a std::unique_ptr that owns an object (or an
// array) living on a memory resource.
//
// `allocate_unique<T>(resource, args...)` allocates sizeof(T) bytes from
// `resource`, builds T there and returns a `resource_unique_ptr<T, R>` whose
// deleter destroys the object and gives the bytes back to the same resource.
// `allocate_unique<T[]>(resource, n)` does the same for n value-initialised
// elements. Construction is uses-allocator construction, as
// `polymorphic_allocator::new_object` does: a `std::pmr::string` or a
// container on `alloclab::allocator` is built on the same resource. If a
// constructor throws, what was built is destroyed and the memory returned.
//
// | Resource (deduced from the pointer) | deleter calls                         |
// |-------------------------------------|---------------------------------------|
// | an alloclab resource, e.g. arena    | its non-virtual `deallocate`, inlined |
// | `std::pmr::memory_resource`         | the virtual `deallocate`              |
//
// The deleter frees exactly sizeof(T) (n * sizeof(T) for arrays), so a
// `resource_unique_ptr<Derived>` does not convert to one of a base class: the
// base's size would be freed. The resource must outlive the pointer.
//
// Example:
//   #include <alloclab/arena_resource.hpp>
//   #include <alloclab/unique_ptr.hpp>
//   #include <memory_resource>
//   #include <string>
//
//   struct point {
//     int x, y;
//     point(int a, int b) : x(a), y(b) {}
//   };
//
//   int main() {
//     alloclab::inline_arena<1024> arena{std::pmr::null_memory_resource()};
//     auto p = alloclab::allocate_unique<point>(&arena, 3, 4);  // on the arena, no heap
//     auto xs = alloclab::allocate_unique<int[]>(&arena, 10);   // ten zeros
//     std::pmr::memory_resource* r = &arena;
//     auto s = alloclab::allocate_unique<std::pmr::string>(r, 40, 'x');  // the string's buffer too
//     return p->x + p->y == 7 && xs[9] == 0 && s->get_allocator().resource() == r ? 0 : 1;
//   }
//
// Thread safety: that of the resource.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <memory_resource>
#include <new>
#include <type_traits>
#include <utility>

#include "allocator.hpp"
#include "failure.hpp"

namespace alloclab {

// Destroys a T and returns its bytes to `resource`.
template <class T, class Resource = std::pmr::memory_resource>
class resource_deleter {
 public:
  resource_deleter() noexcept = default;  // for an empty unique_ptr only
  explicit resource_deleter(Resource* resource) noexcept : resource_(resource) {}

  void operator()(T* p) const noexcept {
    p->~T();
    resource_->deallocate(p, sizeof(T), alignof(T));
  }
  Resource* resource() const noexcept { return resource_; }

 private:
  Resource* resource_ = nullptr;
};

// Destroys `size` elements (last first) and returns their bytes.
template <class T, class Resource>
class resource_deleter<T[], Resource> {
 public:
  resource_deleter() noexcept = default;
  resource_deleter(Resource* resource, std::size_t size) noexcept
      : resource_(resource), size_(size) {}

  void operator()(T* p) const noexcept {
    std::destroy_n(std::make_reverse_iterator(p + size_), size_);
    resource_->deallocate(p, size_ * sizeof(T), alignof(T));
  }
  Resource* resource() const noexcept { return resource_; }
  std::size_t size() const noexcept { return size_; }

 private:
  Resource* resource_ = nullptr;
  std::size_t size_ = 0;
};

template <class T, class Resource = std::pmr::memory_resource>
using resource_unique_ptr = std::unique_ptr<T, resource_deleter<T, Resource>>;

namespace detail {

// Memory for n Ts that goes back to the resource unless released.
template <class T, class Resource>
class pending_allocation {
 public:
  pending_allocation(Resource* resource, std::size_t n)
      : resource_(resource),
        bytes_(n * sizeof(T)),
        p_(static_cast<T*>(resource->allocate(bytes_, alignof(T)))) {}
  pending_allocation(const pending_allocation&) = delete;
  pending_allocation& operator=(const pending_allocation&) = delete;
  ~pending_allocation() {
    if (p_ != nullptr) resource_->deallocate(p_, bytes_, alignof(T));
  }
  T* get() const noexcept { return p_; }
  T* release() noexcept { return std::exchange(p_, nullptr); }

 private:
  Resource* resource_;
  std::size_t bytes_;
  T* p_;
};

}  // namespace detail

// One T built from `args` on `resource` (uses-allocator construction).
template <class T, class Resource, class... Args, std::enable_if_t<!std::is_array_v<T>, int> = 0>
resource_unique_ptr<T, Resource> allocate_unique(Resource* resource, Args&&... args) {
  detail::pending_allocation<T, Resource> memory{resource, 1};
  allocator<T, Resource>{resource}.construct(memory.get(), std::forward<Args>(args)...);
  return resource_unique_ptr<T, Resource>{memory.release(),
                                          resource_deleter<T, Resource>{resource}};
}

// `size` value-initialised Ts on `resource`; throws std::bad_array_new_length
// when size * sizeof(T) does not fit in std::size_t.
template <class T, class Resource,
          std::enable_if_t<std::is_array_v<T> && std::extent_v<T> == 0, int> = 0>
resource_unique_ptr<T, Resource> allocate_unique(Resource* resource, std::size_t size) {
  using element = std::remove_extent_t<T>;
  if (size > std::numeric_limits<std::size_t>::max() / sizeof(element))
    fail<std::bad_array_new_length>("alloclab::allocate_unique: size overflows");
  detail::pending_allocation<element, Resource> memory{resource, size};
  allocator<element, Resource> alloc{resource};
  std::size_t built = 0;
  ALLOCLAB_TRY {
    for (; built < size; ++built) alloc.construct(memory.get() + built);
  }
  ALLOCLAB_CATCH_ALL {
    std::destroy_n(std::make_reverse_iterator(memory.get() + built), built);
    ALLOCLAB_RETHROW;
  }
  return resource_unique_ptr<T, Resource>{memory.release(),
                                          resource_deleter<T, Resource>{resource, size}};
}

}  // namespace alloclab
