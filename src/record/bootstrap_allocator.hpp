// The bootstrap allocator: a static 256 KiB buffer that serves the calls made before the next
// malloc is known (dlsym allocates while it resolves it). Blocks carry a 16-byte size header so
// realloc and malloc_usable_size work on them; free of one is a no-op.
#pragma once

#include <stddef.h>

#include <atomic>
#include <cstdint>

// The recorder's own symbols are hidden: its hot path reaches them PC-relative, without the GOT.
#pragma GCC visibility push(hidden)

namespace alloclab::record {

inline constexpr std::size_t bootstrap_bytes = 256 * 1024;
extern unsigned char bootstrap[bootstrap_bytes];
extern std::atomic<std::uint64_t> bootstrap_allocations;  ///< for the trace's footer

inline bool in_bootstrap(const void* p) noexcept {
  const auto* b = static_cast<const unsigned char*>(p);
  return b >= bootstrap && b < bootstrap + bootstrap_bytes;
}
/// Null when the buffer is exhausted.
void* bootstrap_alloc(size_t n, size_t alignment = 16) noexcept;
size_t bootstrap_size(const void* p) noexcept;

}  // namespace alloclab::record

#pragma GCC visibility pop
