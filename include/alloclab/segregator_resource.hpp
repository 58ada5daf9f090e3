// alloclab/segregator_resource.hpp: small requests to one resource, larger
// ones to another (foonathan's segregator, as a std::pmr adaptor).
//
// `segregator_resource<Small, Large>{threshold, small, large}` sends every
// request of at most `threshold` bytes to `small` and every larger one to
// `large`; that is its one concern. It decides on the byte count alone, so a
// deallocation, which repeats the count, reaches the resource that
// allocated. Typical use: a multipool for small objects, the heap or a
// huge-page buffer for big ones. With concrete upstream types the forwarded
// calls are non-virtual; the defaults take any std::pmr::memory_resource.
//
// | request              | goes to |
// |----------------------|---------|
// | bytes <= threshold() | small() |
// | bytes >  threshold() | large() |
//
// Example:
//   #include <alloclab/multipool_resource.hpp>
//   #include <alloclab/segregator_resource.hpp>
//   #include <alloclab/tracking_resource.hpp>
//   #include <memory_resource>
//   #include <string>
//   #include <vector>
//
//   int main() {
//     alloclab::multipool_resource pool{std::pmr::new_delete_resource()};
//     alloclab::tracking_resource heap;  // counts what reaches the heap
//     alloclab::segregator_resource split{256, &pool, &heap};
//     std::pmr::vector<std::pmr::string> names{&split};
//     names.reserve(100);  // 100 strings, far over 256 bytes: from the heap
//     for (int i = 0; i < 100; ++i) names.emplace_back(40, 'x');  // 41 bytes each: the pool
//     return heap.blocks().total == 1 && pool.class_stats(pool.class_of(41, 1)).blocks_in_use == 100
//                ? 0
//                : 1;
//   }
//
// Bounds: allocate and deallocate one compare plus the chosen upstream's call.
//
// Thread safety: that of the upstreams.
#pragma once

#include <cstddef>
#include <memory_resource>

#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"

namespace alloclab {

template <class Small = std::pmr::memory_resource, class Large = std::pmr::memory_resource>
class segregator_resource : public detail::pmr_bridge<segregator_resource<Small, Large>> {
 public:
  segregator_resource(std::size_t threshold, Small* small, Large* large) noexcept
      : threshold_(threshold), small_(small), large_(large) {}

  segregator_resource(const segregator_resource&) = delete;
  segregator_resource& operator=(const segregator_resource&) = delete;

  // Non-virtual; hide memory_resource::allocate/deallocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    if (is_small(bytes)) return small_->allocate(bytes, alignment);
    detail::require_representable_size(bytes);  // std::bad_array_new_length over PTRDIFF_MAX
    return large_->allocate(bytes, alignment);
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    if (is_small(bytes)) {
      small_->deallocate(p, bytes, alignment);
    } else {
      large_->deallocate(p, bytes, alignment);
    }
  }

  bool is_small(std::size_t bytes) const noexcept { return bytes <= threshold_; }
  std::size_t threshold() const noexcept { return threshold_; }
  Small* small() const noexcept { return small_; }
  Large* large() const noexcept { return large_; }

 private:
  std::size_t threshold_;
  Small* small_;
  Large* large_;
};

}  // namespace alloclab
