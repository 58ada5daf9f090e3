#include "bootstrap_allocator.hpp"

#include <cstring>

namespace alloclab::record {

alignas(64) unsigned char bootstrap[bootstrap_bytes];
namespace {
std::atomic<std::size_t> bootstrap_used{0};
}
std::atomic<std::uint64_t> bootstrap_allocations{0};

// 16-byte header holding the size, so realloc and malloc_usable_size work on these blocks.
void* bootstrap_alloc(size_t n, size_t alignment) noexcept {
  if (alignment < 16) alignment = 16;
  for (;;) {
    std::size_t used = bootstrap_used.load(std::memory_order_relaxed);
    std::size_t start = (used + 16 + alignment - 1) & ~(alignment - 1);
    if (start + n > bootstrap_bytes || n > bootstrap_bytes) return nullptr;
    if (bootstrap_used.compare_exchange_weak(used, start + n)) {
      bootstrap_allocations.fetch_add(1, std::memory_order_relaxed);
      std::memcpy(bootstrap + start - sizeof(size_t), &n, sizeof(size_t));
      return bootstrap + start;
    }
  }
}
size_t bootstrap_size(const void* p) noexcept {
  size_t n;
  std::memcpy(&n, static_cast<const unsigned char*>(p) - sizeof(size_t), sizeof(size_t));
  return n;
}

}  // namespace alloclab::record
