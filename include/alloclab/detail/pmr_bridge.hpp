// alloclab/detail/pmr_bridge.hpp: connects a resource's non-virtual
// allocate/deallocate to std::pmr::memory_resource's virtual interface, and
// the exception base for refused requests. Private: not part of the interface.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <new>

namespace alloclab::detail {

// Derived provides allocate(bytes, alignment) and deallocate(p, bytes,
// alignment); calls through memory_resource* land there. Resources are equal
// only to themselves.
template <class Derived>
class pmr_bridge : public std::pmr::memory_resource {
 protected:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    return self().allocate(bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    self().deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

 private:
  Derived& self() noexcept { return static_cast<Derived&>(*this); }
};

// A std::bad_alloc that carries the request it refused.
class refused_request : public std::bad_alloc {
 public:
  refused_request(std::size_t bytes, std::size_t alignment) noexcept
      : bytes_(bytes), alignment_(alignment) {}
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t alignment() const noexcept { return alignment_; }

 private:
  std::size_t bytes_;
  std::size_t alignment_;
};

}  // namespace alloclab::detail
