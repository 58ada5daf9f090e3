// A replaceable global operator new that can be told to fail, so tests can
// prove a component never depends on the global heap (BDE's default-allocator
// guard, in miniature). Only the unaligned single-object form is replaced;
// libstdc++ routes the array and nothrow forms through it and frees with free().
#include <atomic>
#include <cstdlib>
#include <new>

#include "test_resources.hpp"

namespace {
std::atomic<int> failing{0};
std::atomic<std::size_t> calls{0};
}  // namespace

void* operator new(std::size_t size) {
  calls.fetch_add(1, std::memory_order_relaxed);
  if (failing.load(std::memory_order_relaxed) > 0) throw std::bad_alloc();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace alloclab::testing {

global_new_failure::global_new_failure() {
  failing.fetch_add(1);
}
global_new_failure::~global_new_failure() {
  failing.fetch_sub(1);
}
std::size_t global_new_calls() noexcept {
  return calls.load();
}

}  // namespace alloclab::testing
