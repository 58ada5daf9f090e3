// The heap study's allocation policies: what a kernel (kernels.hpp) allocates and frees with.
//
//   struct Policy {
//     static constexpr const char* name;
//     static constexpr bool touches;            // write into blocks (false only for NOOP)
//     static void* allocate(std::size_t bytes);  // never returns nullptr (throws)
//     static void deallocate(void* p, std::size_t bytes) noexcept;
//   };
//
// Example:
//   void* p = alloclab::heap::malloc_policy::allocate(64);
//   alloclab::heap::malloc_policy::deallocate(p, 64);
//   void* none = alloclab::heap::noop_policy::allocate(64);  // the baseline: no allocation
//   alloclab::heap::noop_policy::deallocate(none, 64);
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace alloclab::heap {

namespace detail {
/// Make the optimiser treat `p` as used and memory as clobbered, so the NOOP baseline keeps
/// exactly the same loop structure (ring stores included) as the real runs.
inline void escape(void* p) noexcept {
  asm volatile("" : : "r"(p) : "memory");
}
}  // namespace detail

/// The process-wide malloc/free (whatever LD_PRELOAD made live).
struct malloc_policy {
  static constexpr const char* name = "malloc";
  static constexpr bool touches = true;
  static void* allocate(std::size_t bytes) {
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void deallocate(void* p, std::size_t /*bytes*/) noexcept { std::free(p); }
};

/// Global operator new/delete (sized): a second real allocator front end, used to check that
/// checksums do not depend on the policy.
struct new_delete_policy {
  static constexpr const char* name = "new_delete";
  static constexpr bool touches = true;
  static void* allocate(std::size_t bytes) { return ::operator new(bytes); }
  static void deallocate(void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(__cpp_sized_deallocation)
    ::operator delete(p, bytes);
#else  // clang before 19 leaves sized deallocation off unless -fsized-deallocation
    ::operator delete(p);
#endif
  }
};

/// Baseline: returns a static dummy pointer and writes nothing.
struct noop_policy {
  static constexpr const char* name = "noop";
  static constexpr bool touches = false;
  static void* allocate(std::size_t /*bytes*/) noexcept {
    void* p = &dummy_;
    detail::escape(p);
    return p;
  }
  static void deallocate(void* p, std::size_t /*bytes*/) noexcept { detail::escape(p); }

 private:
  static inline unsigned char dummy_ = 0;
};

}  // namespace alloclab::heap
