// Symbol lookup: the malloc family the recorder forwards to (the definitions after ours, found with
// dlsym(RTLD_NEXT)). dlsym may itself allocate; those calls find ready() false and are served by
// the bootstrap allocator.
#pragma once

#include <dlfcn.h>
#include <stddef.h>

#include <atomic>

// The recorder's own symbols are hidden: its hot path reaches them PC-relative, without the GOT.
#pragma GCC visibility push(hidden)

namespace alloclab::record {

struct next_functions {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*memalign)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  size_t (*malloc_usable_size)(void*);
};
extern next_functions next;
extern std::atomic<bool> resolved;  ///< `next` holds at least malloc and free

/// Looks the functions up once (a call from inside the lookup returns at once).
void resolve_next() noexcept;

/// Whether `next` can be called; resolves it on the first call.
inline bool ready() noexcept {
  if (__builtin_expect(resolved.load(std::memory_order_acquire), 1)) return true;
  resolve_next();
  return resolved.load(std::memory_order_acquire);
}

template <class F>
F* next_function(const char* name) noexcept {
  return reinterpret_cast<F*>(dlsym(RTLD_NEXT, name));
}

/// Another function the recorder wraps (exec, kill...), looked up at its first call (two threads
/// calling first both look it up and store the same pointer). Constant-initialized: no guard.
template <class F>
class next_symbol {
 public:
  constexpr explicit next_symbol(const char* name) noexcept : name_(name) {}
  F* get() noexcept {
    F* f = function_.load(std::memory_order_relaxed);
    if (f == nullptr) {
      f = next_function<F>(name_);
      function_.store(f, std::memory_order_relaxed);
    }
    return f;
  }

 private:
  const char* name_;
  std::atomic<F*> function_{nullptr};
};

}  // namespace alloclab::record

#pragma GCC visibility pop
