// alloclab/allocator_resource.hpp: a std::pmr::memory_resource that takes its
// memory from an STL allocator (Boost's resource_adaptor, foonathan's
// memory_resource_adapter).
//
// `allocator_resource<Allocator>` rebinds the allocator to a unit of
// alignof(std::max_align_t) bytes and serves each request with whole units,
// so anything that speaks std::pmr can use memory from an allocator written
// for the STL (a shared-memory allocator, a counting one, an allocator over
// another alloclab resource). Its one concern is the translation:
//
// | request                              | what the allocator is asked for                     |
// |--------------------------------------|-----------------------------------------------------|
// | alignment <= alignof(max_align_t)    | ceil(bytes / unit) units (at least one: 0 bytes too)|
// | larger power-of-two alignment        | ceil((bytes + alignment) / unit) units; the block starts at the first aligned address past the first unit, and the offset is kept just before it |
// | alignment not a power of two, or the size overflows | nothing: std::bad_alloc    |
//
// deallocate hands the allocator back exactly the pointer and unit count it
// gave. Two adaptors compare equal when they have the same type and their
// allocators compare equal, so memory from one may be freed by the other
// (found without RTTI: see do_is_equal).
//
// Example:
//   #include <alloclab/allocator_resource.hpp>
//   #include <cstdint>
//   #include <map>
//   #include <memory>
//   #include <memory_resource>
//
//   int main() {
//     alloclab::allocator_resource heap{std::allocator<char>{}};  // pmr over std::allocator
//     std::pmr::map<int, int> squares{&heap};
//     for (int i = 0; i < 100; ++i) squares[i] = i * i;
//     void* page = heap.allocate(4096, 4096);  // over-aligned: served from extra units
//     const bool aligned = reinterpret_cast<std::uintptr_t>(page) % 4096 == 0;
//     heap.deallocate(page, 4096, 4096);
//     return aligned && squares[99] == 9801 ? 0 : 1;
//   }
//
// Thread safety: that of the allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <new>
#include <type_traits>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"

namespace alloclab {

namespace detail {

// The unit an allocator_resource allocates in.
struct alignas(std::max_align_t) max_aligned_unit {
  std::byte bytes[alignof(std::max_align_t)];
};

template <class Allocator>
using unit_allocator_of =
    typename std::allocator_traits<Allocator>::template rebind_alloc<max_aligned_unit>;

// Everything but the constructor, on the allocator rebound to units: adaptors
// of allocators that rebind to the same type share it, and compare equal.
template <class UnitAllocator>
class unit_allocator_resource : public pmr_bridge<unit_allocator_resource<UnitAllocator>> {
  using unit = max_aligned_unit;
  using traits = std::allocator_traits<UnitAllocator>;
  static_assert(std::is_same_v<typename traits::pointer, unit*>,
                "allocator_resource needs an allocator with raw pointers");

 public:
  using allocator_type = UnitAllocator;

  explicit unit_allocator_resource(const UnitAllocator& allocator) noexcept
      : allocator_(allocator) {}

  unit_allocator_resource(const unit_allocator_resource&) = delete;
  unit_allocator_resource& operator=(const unit_allocator_resource&) = delete;

  // Non-virtual; hide memory_resource::allocate/deallocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    require_valid_alignment(alignment);
    if (alignment <= sizeof(unit)) return traits::allocate(allocator_, units_for(bytes));
    const std::size_t units = units_for(checked_add(bytes, alignment));
    auto* raw = reinterpret_cast<std::byte*>(traits::allocate(allocator_, units));
    // At least one unit past `raw`, so the offset fits in front of the block.
    std::byte* block = raw + sizeof(unit) + padding_for(raw + sizeof(unit), alignment);
    const std::size_t offset = static_cast<std::size_t>(block - raw);
    std::memcpy(block - sizeof offset, &offset, sizeof offset);
    return block;
  }

  void deallocate(void* p, std::size_t bytes,
                  std::size_t alignment = alignof(std::max_align_t)) noexcept {
    if (alignment <= sizeof(unit)) {
      traits::deallocate(allocator_, static_cast<unit*>(p), units_for(bytes));
      return;
    }
    auto* block = static_cast<std::byte*>(p);
    std::size_t offset = 0;
    std::memcpy(&offset, block - sizeof offset, sizeof offset);
    traits::deallocate(allocator_, reinterpret_cast<unit*>(block - offset),
                       units_for(bytes + alignment));
  }

  allocator_type get_allocator() const noexcept { return allocator_; }

 protected:
  // Without RTTI: `other` is of this type exactly when it claims equality with
  // this type's private probe (below), which no other resource has seen.
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    if (&other == &type_probe) return true;
    if (&other == this) return true;
    if (!other.is_equal(type_probe)) return false;
    const auto& same_units = static_cast<const unit_allocator_resource&>(other);
    return same_units.allocator_ == allocator_;
  }

 private:
  // Never allocates; only its address is used.
  struct probe_resource final : std::pmr::memory_resource {
    void* do_allocate(std::size_t, std::size_t) override { std::abort(); }
    void do_deallocate(void*, std::size_t, std::size_t) override {}
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
      return this == &o;
    }
  };
  static inline probe_resource type_probe{};

  // Whole units holding `bytes`; one for 0 bytes (distinct pointers). Cannot
  // throw for a size that allocate() accepted.
  static std::size_t units_for(std::size_t bytes) {
    const std::size_t units = checked_add(bytes, sizeof(unit) - 1) / sizeof(unit);
    return units + static_cast<std::size_t>(units == 0);
  }

  allocator_type allocator_;
};

}  // namespace detail

template <class Allocator>
class allocator_resource
    : public detail::unit_allocator_resource<detail::unit_allocator_of<Allocator>> {
  using base = detail::unit_allocator_resource<detail::unit_allocator_of<Allocator>>;

 public:
  explicit allocator_resource(const Allocator& allocator = Allocator()) noexcept
      : base(typename base::allocator_type(allocator)) {}
};

}  // namespace alloclab
