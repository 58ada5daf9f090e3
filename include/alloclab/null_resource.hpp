// alloclab/null_resource.hpp: a memory resource that refuses every request
// through alloclab's failure hook (failure.hpp).
//
// std::pmr::null_memory_resource() throws std::bad_alloc from inside
// libstdc++, which is built with exceptions: in a -fno-exceptions program that
// is std::terminate, past the user's failure handler, and on a bare-metal
// target it links the exception runtime. `alloclab::null_resource()` throws
// the same std::bad_alloc with exceptions and calls the failure handler
// without; the fixed-buffer pools use it as their default oversize upstream.
//
// Thread safety: stateless; any thread.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <new>

#include "failure.hpp"

namespace alloclab {

namespace detail {
class refusing_resource final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t, std::size_t) override {
    fail<std::bad_alloc>("alloclab::null_resource: refuses every request");
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};
}  // namespace detail

// An upstream that refuses every request and is no std::pmr type, for the
// cores (basic_arena, basic_pool, basic_multipool) of a firmware build: nothing of
// libstdc++'s memory_resource.o is linked (docs/embedded.md, code size).
struct refusing_upstream {
  [[noreturn]] void* allocate(std::size_t, std::size_t) {
    fail<std::bad_alloc>("alloclab::refusing_upstream: refuses every request");
  }
  void deallocate(void*, std::size_t, std::size_t) noexcept {}
};

// The process's one refusing resource (equal only to itself).
inline std::pmr::memory_resource* null_resource() noexcept {
  static detail::refusing_resource resource;
  return &resource;
}

}  // namespace alloclab
