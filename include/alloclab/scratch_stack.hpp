// alloclab/scratch_stack.hpp: a per-thread stack of memory for temporaries,
// taken and given back in LIFO scopes (foonathan's temporary_allocator).
//
// Each thread has one growing arena_resource: a 16 KiB buffer taken from the
// heap when the thread opens its first scope and kept until the thread ends,
// then blocks from new/delete, twice as large each. A `scratch_scope` marks the
// thread's arena when it opens and rewinds it when it closes, so everything
// allocated through the scope is freed at once, in O(1), and the memory is
// reused by the next scope. Scopes nest; only the innermost open scope on its
// own thread may allocate:
//
// | misuse                                           | what happens            |
// |--------------------------------------------------|-------------------------|
// | allocating from a scope while an inner one is open | throws `scratch_misuse` |
// | allocating from a scope on another thread         | throws `scratch_misuse` |
// | closing a scope while an inner one is open       | std::terminate          |
// | keeping scope memory after the scope closes      | dangling (as any arena) |
//
// A scope is a std::pmr::memory_resource (deallocate is a no-op) and a
// Resource for `alloclab::allocator<T, scratch_scope>`. Each shared library
// that includes this header has its own per-thread stack; scopes are still
// consistent, since a scope only ever talks to the stack it opened on.
//
// Example:
//   #include <alloclab/scratch_stack.hpp>
//   #include <memory_resource>
//   #include <vector>
//
//   long sum_of_squares(int n) {
//     alloclab::scratch_scope scratch;  // rewinds this thread's stack on return
//     std::pmr::vector<long> squares{&scratch};
//     for (int i = 0; i < n; ++i) squares.push_back(long{i} * i);
//     long sum = 0;
//     for (long s : squares) sum += s;
//     return sum;
//   }
//
//   int main() {
//     const long first = sum_of_squares(1000);
//     alloclab::scratch_scope outer;
//     const std::size_t used = outer.arena().used();
//     const long again = sum_of_squares(1000);  // a nested scope reuses the same memory
//     return first == 332833500 && again == first && outer.arena().used() == used ? 0 : 1;
//   }
//
// A scope opened after its thread's stack was destroyed (from a static or
// thread_local destructor: at exit() the main thread's thread_locals go
// before its statics) takes no buffer: it gets an arena of its own whose
// blocks come from new/delete and go back when the scope closes.
//
// Bounds: allocate is O(1) on the buffer; past it, one new/delete block per
// overflow (arena_resource's bounds); closing a scope is O(1) plus the blocks
// its rewind passes.
//
// Thread-safe in the sense above: every thread has its own stack.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <memory_resource>
#include <stdexcept>
#include <thread>

#include "arena_resource.hpp"
#include "detail/pmr_bridge.hpp"
#include "failure.hpp"

namespace alloclab {

class scratch_scope;

// Thrown when a scope that may not allocate is asked to (see the table above).
class scratch_misuse : public std::logic_error {
 public:
  explicit scratch_misuse(const char* what) : std::logic_error(what) {}
};

namespace detail {

inline constexpr std::size_t scratch_buffer_size = 16 * 1024;

// The buffer is the arena's own, not an upstream block: rewinding to the
// first mark never gives it back, so scope after scope reuses it.
struct scratch_stack {
  scratch_stack() : buffer(new std::byte[scratch_buffer_size]) {}
  // No buffer: every block from new/delete (a scope opened after its thread's stack is gone).
  explicit scratch_stack(std::nullptr_t) noexcept {}

  std::unique_ptr<std::byte[]> buffer;
  arena_resource arena{buffer.get(), buffer ? scratch_buffer_size : 0,
                       std::pmr::new_delete_resource()};
  const scratch_scope* innermost = nullptr;
};

// True once this thread's stack has been destroyed (thread exit; for the main
// thread, exit() before static destructors). Trivially destructible, so it is
// readable from any later destructor, as concurrent_multipool_resource's
// detail::thread_exiting().
inline bool& thread_scratch_destroyed() noexcept {
  static thread_local bool destroyed = false;
  return destroyed;
}

struct thread_scratch_stack : scratch_stack {
  ~thread_scratch_stack() { thread_scratch_destroyed() = true; }
};

// This thread's stack, built when first asked for (may throw std::bad_alloc).
// Requires !thread_scratch_destroyed().
inline scratch_stack& this_thread_scratch() {
  thread_local thread_scratch_stack stack;
  return stack;
}

}  // namespace detail

class scratch_scope : public detail::pmr_bridge<scratch_scope> {
 public:
  // Throws std::bad_alloc if this is the thread's first scope and its buffer
  // cannot be allocated. Opened after the thread's stack was destroyed (in a
  // static or thread_local destructor), the scope gets a stack of its own.
  scratch_scope()
      : late_stack_(detail::thread_scratch_destroyed() ? new detail::scratch_stack{nullptr}
                                                       : nullptr),
        stack_(late_stack_ ? *late_stack_ : detail::this_thread_scratch()),
        mark_(stack_.arena.mark()),
        outer_(stack_.innermost),
        owner_(std::this_thread::get_id()) {
    stack_.innermost = this;
  }

  scratch_scope(const scratch_scope&) = delete;
  scratch_scope& operator=(const scratch_scope&) = delete;

  ~scratch_scope() override {
    if (stack_.innermost != this) std::terminate();  // closed out of LIFO order
    stack_.arena.rewind(mark_);
    stack_.innermost = outer_;
  }

  // Non-virtual; hides memory_resource::allocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    if (std::this_thread::get_id() != owner_)
      fail<scratch_misuse>("alloclab::scratch_scope: used on a thread it was not opened on",
                           "alloclab::scratch_scope: used on a thread it was not opened on");
    if (stack_.innermost != this)
      fail<scratch_misuse>("alloclab::scratch_scope: an inner scope is open",
                           "alloclab::scratch_scope: an inner scope is open");
    return stack_.arena.allocate(bytes, alignment);
  }

  // A no-op: the memory returns when the scope closes.
  void deallocate(void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}

  // The thread's arena, for its statistics (used(), upstream_allocations()).
  const arena_resource& arena() const noexcept { return stack_.arena; }

 private:
  std::unique_ptr<detail::scratch_stack> late_stack_;  // only after the thread's is gone
  detail::scratch_stack& stack_;
  arena_mark mark_;
  const scratch_scope* outer_;
  std::thread::id owner_;
};

}  // namespace alloclab
