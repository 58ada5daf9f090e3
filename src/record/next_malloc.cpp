#include "next_malloc.hpp"

namespace alloclab::record {

next_functions next{};
std::atomic<bool> resolved{false};

namespace {

__thread bool resolving __attribute__((tls_model("initial-exec"))) = false;

template <class F>
void lookup(F& slot, const char* name) noexcept {
  slot = reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// dlsym may itself call malloc/calloc/free: those calls find `resolving` set and use the buffer.
void resolve_next() noexcept {
  if (resolved.load(std::memory_order_acquire) || resolving) return;
  resolving = true;
  next_functions n{};
  lookup(n.malloc, "malloc");
  lookup(n.free, "free");
  lookup(n.calloc, "calloc");
  lookup(n.realloc, "realloc");
  lookup(n.memalign, "memalign");
  lookup(n.posix_memalign, "posix_memalign");
  lookup(n.aligned_alloc, "aligned_alloc");
  lookup(n.valloc, "valloc");
  lookup(n.pvalloc, "pvalloc");
  lookup(n.malloc_usable_size, "malloc_usable_size");
  next = n;
  resolving = false;
  resolved.store(n.malloc != nullptr && n.free != nullptr, std::memory_order_release);
}

}  // namespace alloclab::record
