// alloclab/arena_resource.hpp: a bump-pointer arena over a caller's buffer
// that makes every fallback to its upstream visible.
//
// `arena_resource` hands out memory by advancing a pointer through the
// caller's buffer; `deallocate` is a no-op and `release()` or `rewind()`
// reclaims memory in bulk. When the buffer runs out, the overflow policy
// decides: grow with geometrically larger blocks from the upstream (counted in
// `upstream_allocations()` / `upstream_bytes()`), throw `arena_exhausted`, or
// call a handler first. `std::pmr::monotonic_buffer_resource` falls back to
// the heap silently; seed 000 measured the heap for that reason.
//
// `basic_arena<Upstream>` is the same arena with no virtual function and no
// std::pmr type when Upstream is none (`refusing_upstream`, or any type with
// allocate/deallocate): through `alloclab::allocator<T, basic_arena<U>>` a
// firmware build links nothing of libstdc++'s memory_resource.o.
// `arena_resource` is the std::pmr::memory_resource over
// `basic_arena<std::pmr::memory_resource>`.
//
// `inline_arena<N>` carries N bytes of storage inside the object (put it on
// the stack). `arena_scope` rewinds an arena when it leaves scope. A mark
// also records the growth state, and a rewind keeps the upstream blocks it
// passes back for the next overflows, so a scope loop takes its blocks from
// the upstream once, not every pass. Kept blocks are bounded: an overflow
// whose next kept block is too small returns that block upstream and takes
// a new one in its place, so the arena never holds more blocks than at its
// peak. `shrink_to_fit()` returns the kept blocks; `release()` and the
// destructor return every block. A mark made stale by `release()` or by a
// rewind past it is detected (`stale_rewinds()`) and ignored instead of
// pointing the arena into a block it no longer uses.
//
// Bounds (b = upstream blocks in use; nothing but shrink_to_fit, release and
// the destructor walks the kept blocks):
//   allocate    O(1) in the current block: one compare, one add. Overflow:
//               O(1), plus at most one upstream deallocate (a kept block too
//               small for the request) and one upstream allocate.
//   deallocate  O(1), does nothing.
//   mark        O(1).  rewind, stale or not: O(log b) (a skew-binary jump
//               list finds the mark's block).
//   shrink_to_fit O(kept blocks); release, destructor O(blocks held).
//
// Example:
//   #include <alloclab/arena_resource.hpp>
//   #include <memory_resource>
//   #include <vector>
//
//   int main() {
//     // A benchmark or test arena: null upstream, so overflow throws.
//     alloclab::inline_arena<4096> arena{std::pmr::null_memory_resource()};
//     {
//       alloclab::arena_scope scope{arena};
//       std::pmr::vector<int> values{&arena};
//       values.reserve(100);
//       for (int i = 0; i < 100; ++i) values.push_back(i);
//       if (arena.used() < 100 * sizeof(int)) return 1;
//     }
//     // The scope rewound the arena; nothing reached the upstream.
//     return arena.used() == 0 && arena.upstream_allocations() == 0 ? 0 : 1;
//   }
//
// Not thread-safe: one arena per thread or per request.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory_resource>
#include <new>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"
#include "failure.hpp"
#include "null_resource.hpp"

namespace alloclab {

// What an arena does when its current block cannot satisfy a request.
enum class overflow_policy {
  grow,             // take a larger block from the upstream (counted)
  throw_bad_alloc,  // throw arena_exhausted; never touch the upstream
  call_handler,     // call arena_options::on_overflow, then grow
};

// How much larger each upstream block is than the one before, kept in
// 1/256ths so the arena grows in integers (no floating point: a Cortex-M3
// would link ~3 KB of soft-float for a double). Made from a factor such as
// 1.5; a literal converts at compile time. Below 1 (or NaN) means 1.
class growth_ratio {
 public:
  static constexpr std::size_t one = 256;
  static constexpr std::size_t largest = one << 20;
  constexpr growth_ratio(double factor = 2.0) noexcept  // NOLINT: implicit on purpose
      : per_256_(!(factor >= 1.0) ? one
                 : factor >= static_cast<double>(largest / one)
                     ? largest
                     : static_cast<std::size_t>(factor * static_cast<double>(one) + 0.5)) {}
  constexpr std::size_t per_256() const noexcept { return per_256_; }
  // `size` grown by this ratio, at most `cap`.
  constexpr std::size_t apply(std::size_t size, std::size_t cap) const noexcept {
    const std::size_t whole = size / one;
    if (whole > cap / per_256_) return cap;
    const std::size_t grown = whole * per_256_ + (size % one) * per_256_ / one;
    return grown < cap ? grown : cap;
  }
  friend constexpr bool operator==(growth_ratio a, growth_ratio b) noexcept {
    return a.per_256_ == b.per_256_;
  }
  friend constexpr bool operator!=(growth_ratio a, growth_ratio b) noexcept { return !(a == b); }

 private:
  std::size_t per_256_;
};

struct arena_options {
  overflow_policy policy = overflow_policy::grow;
  growth_ratio growth_factor = 2.0;  // each upstream block this much larger
  std::size_t first_block_size = 0;  // 0: max(buffer size, 1 KiB)
  // Called with (bytes, alignment) under overflow_policy::call_handler. It may
  // throw to refuse the request; if it returns, the arena grows.
  std::function<void(std::size_t, std::size_t)> on_overflow;
};

// Thrown when an arena may not grow; carries the request that did not fit.
class arena_exhausted : public detail::refused_request {
 public:
  using refused_request::refused_request;
  const char* what() const noexcept override {
    return "alloclab::arena_resource: buffer exhausted and the overflow policy forbids growing";
  }
};

// A position in an arena, taken by mark() and restored by rewind(), with the
// growth state and what identifies the block it points into.
struct arena_mark {
  void* block = nullptr;
  std::byte* cursor = nullptr;
  std::byte* limit = nullptr;
  std::byte* begin = nullptr;
  std::size_t retired_bytes = 0;
  std::size_t next_block_size = 0;
  std::size_t block_serial = 0;  // 0: the caller's buffer
  std::size_t generation = 0;    // release() count when the mark was taken
  std::size_t block_depth = 0;   // upstream blocks in use up to `block`; 0: the caller's buffer
};

// The arena itself, with no virtual function, over any Upstream with
// allocate(bytes, alignment) and deallocate(p, bytes, alignment): use it
// directly through alloclab::allocator<T, basic_arena<U>>, or as
// arena_resource, the std::pmr::memory_resource over it.
template <class Upstream>
class basic_arena {
 public:
  basic_arena(void* buffer, std::size_t size, Upstream* upstream, arena_options options = {})
      : initial_(static_cast<std::byte*>(buffer)),
        initial_size_(buffer ? size : 0),
        upstream_(upstream),
        options_(std::move(options)) {
    reset_to_initial_buffer();
  }

  basic_arena(const basic_arena&) = delete;
  basic_arena& operator=(const basic_arena&) = delete;
  ~basic_arena() { release_blocks(); }

  // Non-virtual fast path; hides memory_resource::allocate on purpose.
  // allocate_after_overflow is cold, so GCC moves it out of line and the hit
  // path falls through (docs/benchmarks.md, arena_in_memory_64B).
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::uintptr_t cursor = detail::address_of(cursor_);
    const std::uintptr_t aligned = (cursor + alignment - 1) & ~(alignment - 1);
    // One compare: padding + bytes <= limit - cursor, with bytes >= 1 (0 wraps and fails).
    if (is_plain_request(bytes, alignment) &&
        (aligned - cursor) + (bytes - 1) < static_cast<std::size_t>(limit_ - cursor_)) {
      // From the aligned address, not cursor_ + padding: one add less on the
      // cursor's dependency chain, which bounds a loop of allocations.
      auto* result = reinterpret_cast<std::byte*>(aligned);
      cursor_ = result + bytes;
      return result;
    }
    return allocate_after_overflow(bytes, alignment);
  }

  // Individual deallocation is a no-op: memory returns on release()/rewind().
  void deallocate(void*, std::size_t, std::size_t = alignof(std::max_align_t)) noexcept {}

  // Returns every upstream block (kept ones too) and restarts at the front of
  // the buffer and of the growth sequence. Every mark taken before becomes stale.
  void release() noexcept {
    release_blocks();
    reset_to_initial_buffer();
    ++generation_;
  }

  // Returns the blocks rewinds kept for reuse to the upstream; the blocks in
  // use stay.
  void shrink_to_fit() noexcept { free_chain(link_to_kept()); }

  arena_mark mark() const noexcept {
    return {head_,          cursor_,          limit_,           begin_,
            retired_bytes_, next_block_size_, serial_of(head_), generation_,
            depth_of(head_)};
  }

  // Frees what was allocated after `m` (keeping its upstream blocks for the
  // next overflows) and restores the growth state `m` saw. A stale mark
  // (taken before release(), or rewound past: its block is gone or its
  // position is behind the cursor's) changes nothing and is counted in
  // stale_rewinds(). `m` must come from this arena. O(log blocks in use).
  void rewind(const arena_mark& m) noexcept {
    if (!is_current(m)) {
      ++stale_rewinds_;
      return;
    }
    head_ = static_cast<block_header*>(m.block);  // the blocks after it are now kept
    cursor_ = m.cursor;
    limit_ = m.limit;
    begin_ = m.begin;
    retired_bytes_ = m.retired_bytes;
    next_block_size_ = m.next_block_size;
  }

  // Bytes handed out since the last release, alignment padding included.
  std::size_t used() const noexcept {
    return retired_bytes_ + static_cast<std::size_t>(cursor_ - begin_);
  }
  // Bytes left in the current block before the next overflow.
  std::size_t remaining() const noexcept { return static_cast<std::size_t>(limit_ - cursor_); }
  std::size_t buffer_size() const noexcept { return initial_size_; }

  // Overflow accounting, cumulative since construction.
  std::size_t overflows() const noexcept { return overflows_; }
  std::size_t upstream_allocations() const noexcept { return upstream_allocations_; }
  std::size_t upstream_bytes() const noexcept { return upstream_bytes_; }
  // Rewinds to a stale mark, ignored (see rewind()).
  std::size_t stale_rewinds() const noexcept { return stale_rewinds_; }
  Upstream* upstream() const noexcept { return upstream_; }
  const arena_options& options() const noexcept { return options_; }

 private:
  // The blocks form one list, oldest first: those in use up to head_, then
  // the kept ones in the order the growth sequence asks for them again.
  struct block_header {
    block_header* previous;  // in use: the block before it (nullptr: the caller's buffer)
    block_header* next;
    block_header* jump;  // in use: an earlier block in use, skew-binary spaced (ancestor_at)
    std::size_t size;
    std::size_t serial;  // blocks_started_ when it became current: unique per use
    std::size_t depth;   // in use: 1 + the blocks in use before it
  };
  static constexpr std::size_t header_size =
      (sizeof(block_header) + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
  static constexpr std::size_t min_first_block = 1024;

  void reset_to_initial_buffer() noexcept {
    begin_ = cursor_ = initial_;
    limit_ = initial_ + initial_size_;
    retired_bytes_ = 0;
    next_block_size_ = options_.first_block_size ? options_.first_block_size
                                                 : std::max(initial_size_, min_first_block);
  }

  // 1 <= bytes and alignment < SIZE_MAX / 4, alignment a power of two: then
  // padding + bytes - 1 cannot wrap. Folds away for constant requests.
  static constexpr bool is_plain_request(std::size_t bytes, std::size_t alignment) noexcept {
    constexpr std::size_t quarter = SIZE_MAX / 4;
    return ((bytes - 1) | alignment) < quarter && (alignment & (alignment - 1)) == 0 &&
           alignment != 0;
  }

  static std::size_t serial_of(const block_header* block) noexcept {
    return block ? block->serial : 0;
  }
  static std::size_t depth_of(const block_header* block) noexcept {
    return block ? block->depth : 0;
  }

  // The jump of a block placed after `previous`: two equal jumps behind
  // `previous` merge into one (a skew-binary list: any depth in O(log n)).
  static block_header* jump_after(block_header* previous) noexcept {
    if (previous == nullptr || previous->jump == nullptr) return previous;
    block_header* jump = previous->jump;
    const bool equal_spans = previous->depth - jump->depth == jump->depth - depth_of(jump->jump);
    return equal_spans ? jump->jump : previous;
  }

  // The block in use at `depth` (<= the current depth); nullptr for 0.
  const block_header* ancestor_at(std::size_t depth) const noexcept {
    const block_header* block = head_;
    while (depth_of(block) > depth) {
      block = depth_of(block->jump) >= depth ? block->jump : block->previous;
    }
    return block;
  }

  // True when `m` points into a block in use, by the same use as when it
  // was taken, at or before the cursor when it is the current block.
  bool is_current(const arena_mark& m) const noexcept {
    if (m.generation != generation_ || m.block_depth > depth_of(head_)) return false;
    const block_header* block = ancestor_at(m.block_depth);
    if (block != m.block || serial_of(block) != m.block_serial) return false;
    return block != head_ || m.cursor <= cursor_;
  }

  // The link that points at the first kept block: head_->next, or first_.
  block_header*& link_to_kept() noexcept { return head_ ? head_->next : first_; }

  // Returns `chain` and every block after it upstream; leaves it null.
  void free_chain(block_header*& chain) noexcept {
    while (chain != nullptr) {
      block_header* next = chain->next;
      upstream_->deallocate(chain, chain->size, alignof(std::max_align_t));
      chain = next;
    }
  }

  void release_blocks() noexcept {
    free_chain(first_);
    head_ = nullptr;
  }

  // Takes `bytes` at `alignment` from the current block, or returns nullptr;
  // exact for any request (the fast path's check covers plain ones only).
  void* carve(std::size_t bytes, std::size_t alignment) noexcept {
    const std::size_t padding = detail::padding_for(cursor_, alignment);
    const auto available = static_cast<std::size_t>(limit_ - cursor_);
    if (padding > available || bytes > available - padding) return nullptr;
    std::byte* result = cursor_ + padding;
    cursor_ = result + bytes;
    return result;
  }

  // The first kept block that holds `minimum` bytes, else nullptr. A first
  // kept block too small for it goes back upstream and the next one is
  // tried; one only, so an overflow stays bounded.
  block_header* take_kept_block(std::size_t minimum) noexcept {
    block_header*& first_kept = link_to_kept();
    block_header* block = first_kept;
    if (block == nullptr || block->size >= minimum) return block;
    first_kept = block->next;
    upstream_->deallocate(block, block->size, alignof(std::max_align_t));
    return first_kept != nullptr && first_kept->size >= minimum ? first_kept : nullptr;
  }

  [[gnu::noinline, gnu::cold]] void* allocate_after_overflow(std::size_t bytes,
                                                             std::size_t alignment) {
    detail::require_valid_alignment(alignment);
    bytes += static_cast<std::size_t>(bytes == 0);  // distinct pointers for 0 bytes
    if (void* p = carve(bytes, alignment)) return p;
    ++overflows_;
    if (options_.policy == overflow_policy::throw_bad_alloc)
      fail<arena_exhausted>("alloclab::arena_resource: exhausted", bytes, alignment);
    if (options_.policy == overflow_policy::call_handler && options_.on_overflow) {
      options_.on_overflow(bytes, alignment);
    }
    start_new_block(detail::checked_add(detail::checked_add(bytes, alignment), header_size));
    return carve(bytes, alignment);  // fits: the block has room for any padding
  }

  void start_new_block(std::size_t minimum) {
    block_header* block = take_kept_block(minimum);
    if (block == nullptr) block = new_upstream_block(std::max(next_block_size_, minimum));
    block->previous = head_;
    block->jump = jump_after(head_);
    block->depth = depth_of(head_) + 1;
    block->serial = ++blocks_started_;
    retired_bytes_ += static_cast<std::size_t>(cursor_ - begin_);
    head_ = block;
    begin_ = cursor_ = reinterpret_cast<std::byte*>(block) + header_size;
    limit_ = reinterpret_cast<std::byte*>(block) + block->size;
    next_block_size_ = grown(block->size);
  }

  // A block of `size` bytes from the upstream, linked in as the first kept one.
  block_header* new_upstream_block(std::size_t size) {
    void* raw = upstream_->allocate(size, alignof(std::max_align_t));
    ++upstream_allocations_;
    upstream_bytes_ += size;
    block_header*& first_kept = link_to_kept();
    first_kept = ::new (raw) block_header{nullptr, first_kept, nullptr, size, 0, 0};
    return first_kept;
  }

  // The next block size; capped at a quarter of the address space (any size_t width).
  std::size_t grown(std::size_t size) const noexcept {
    constexpr std::size_t largest = std::size_t{1} << (sizeof(std::size_t) * 8 - 2);
    return options_.growth_factor.apply(size, largest);
  }

  std::byte* cursor_ = nullptr;
  std::byte* limit_ = nullptr;
  std::byte* begin_ = nullptr;
  std::size_t retired_bytes_ = 0;
  block_header* head_ = nullptr;   // the current block; nullptr: the caller's buffer
  block_header* first_ = nullptr;  // the oldest block held
  std::byte* initial_;
  std::size_t initial_size_;
  Upstream* upstream_;
  arena_options options_;
  std::size_t next_block_size_ = 0;
  std::size_t overflows_ = 0;
  std::size_t upstream_allocations_ = 0;
  std::size_t upstream_bytes_ = 0;
  std::size_t stale_rewinds_ = 0;
  std::size_t generation_ = 0;
  std::size_t blocks_started_ = 0;
};

// The arena as a std::pmr::memory_resource (its allocate and deallocate
// stay non-virtual; calls through memory_resource* reach them).
class arena_resource : public detail::pmr_bridge<arena_resource>,
                       public basic_arena<std::pmr::memory_resource> {
 public:
  arena_resource(void* buffer, std::size_t size,
                 std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
                 arena_options options = {})
      : basic_arena(buffer, size, upstream, std::move(options)) {}

  // Hide memory_resource::allocate/deallocate on purpose.
  using basic_arena::allocate;
  using basic_arena::deallocate;
};

namespace detail {
template <std::size_t N>
struct inline_storage {
  alignas(std::max_align_t) std::byte bytes[N];
};
}  // namespace detail

// An arena whose first N bytes live inside the object itself.
template <std::size_t N>
class inline_arena final : private detail::inline_storage<N>, public arena_resource {
 public:
  explicit inline_arena(std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
                        arena_options options = {})
      : arena_resource(detail::inline_storage<N>::bytes, N, upstream, std::move(options)) {}
};

// Rewinds an arena (arena_resource or a basic_arena) to where it stood when
// the scope was opened.
template <class Arena = arena_resource>
class arena_scope {
 public:
  explicit arena_scope(Arena& arena) noexcept : arena_(arena), mark_(arena.mark()) {}
  arena_scope(const arena_scope&) = delete;
  arena_scope& operator=(const arena_scope&) = delete;
  ~arena_scope() { arena_.rewind(mark_); }

 private:
  Arena& arena_;
  arena_mark mark_;
};

}  // namespace alloclab
