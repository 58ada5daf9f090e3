// alloclab/pool_resource.hpp: a fixed-block-size pool with an O(1)
// intrusive free list.
//
// Every block has the same size, so allocate pops the free list (or carves
// the next block from the current chunk) and deallocate pushes onto it: no
// search, no coalescing, no per-block header. Chunks come from the upstream
// with geometrically more blocks each time, or from a caller's buffer with a
// hard capacity (`pool_exhausted` when it is full), passed as a named
// `fixed_buffer` so no braced argument list can pick that constructor. A request the pool cannot
// serve (larger than the block, or more aligned than the block guarantees)
// follows `oversize_policy`: forwarded to the upstream and counted, or thrown.
// A fixed-buffer pool forwards to its `oversize_upstream` constructor
// argument, `null_resource()` by default (so oversize requests fail through
// the failure hook, failure.hpp).
//
// The alignment rule: a request fits when `bytes <= block_size()` and
// `alignment <= block_alignment()`. `block_alignment()` is the largest power
// of two dividing `block_size()` (at most `max_block_alignment`); chunks and
// the fixed buffer's first block are aligned to it, so every block is.
// `block_size()` is the requested size (at least a pointer) rounded up to a
// multiple of `pool_options::block_alignment`; its default, 0, means
// alignof(max_align_t), what `memory_resource::allocate(n)` asks by default,
// so every default pool serves `allocate(n)` for n <= block_size():
// `pool_resource{24}` has 32-byte blocks and `pool_resource{1}` 16-byte ones.
// Ask for `block_alignment = 8` to get dense 24- or 8-byte blocks for
// 8-aligned nodes (alloclab::allocator<T> asks alignof(T)); requests asking
// more alignment than the blocks have then follow `oversize_policy`. A block
// size that cannot be laid out (rounding would pass SIZE_MAX) throws
// `std::length_error`.
//
// Example:
//   #include <alloclab/pool_resource.hpp>
//   #include <list>
//   #include <memory_resource>
//
//   int main() {
//     // Node containers: one block per node, reused after erase.
//     alignas(std::max_align_t) static std::byte storage[64 * 1024];
//     alloclab::pool_resource pool{48, alloclab::fixed_buffer{storage}};
//     std::pmr::list<int> numbers{&pool};
//     for (int i = 0; i < 1000; ++i) numbers.push_back(i);
//     numbers.clear();
//     for (int i = 0; i < 1000; ++i) numbers.push_back(i);  // reuses the blocks
//     return pool.oversize_allocations() == 0 && pool.capacity() >= 1000 ? 0 : 1;
//   }
//
// Bounds: allocate O(1) (a list pop or a carve; a new chunk is one upstream
// call, never with a fixed buffer); deallocate O(1) (a push; a fixed buffer
// two compares more); reserve O(free blocks + blocks), for start-up;
// release and the destructor O(chunks).
//
// Not thread-safe: one pool per thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory_resource>
#include <new>
#include <stdexcept>

#include "detail/align.hpp"
#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"
#include "failure.hpp"
#include "null_resource.hpp"

namespace alloclab {

// A caller's memory for a fixed-capacity pool. Its constructors are explicit,
// so it is always named at the call site and no braced list such as
// `multipool_resource{&upstream, {2048}}` or `pool_resource{48, &upstream, {}}`
// can select a fixed-buffer constructor.
struct fixed_buffer {
  explicit fixed_buffer(void* memory, std::size_t bytes) noexcept : data(memory), size(bytes) {}
  template <std::size_t N>
  explicit fixed_buffer(std::byte (&bytes)[N]) noexcept : data(bytes), size(N) {}

  void* data;
  std::size_t size;
};

// What a pool does with a request larger or more aligned than its blocks.
enum class oversize_policy {
  forward_to_upstream,  // pass it to the upstream, counted in oversize_allocations()
  throw_bad_alloc,      // throw pool_exhausted
};

struct pool_options {
  oversize_policy oversize = oversize_policy::forward_to_upstream;
  std::size_t first_chunk_blocks = 32;  // blocks in the first upstream chunk
  std::size_t max_chunk_blocks = 4096;  // chunks double up to this many blocks
  std::size_t block_alignment = 0;      // blocks a multiple of this; 0: see the rule above
};

// Thrown when a fixed-capacity pool is full or an oversize request is refused.
class pool_exhausted : public detail::refused_request {
 public:
  using refused_request::refused_request;
  const char* what() const noexcept override {
    return "alloclab::pool_resource: no block available for this request";
  }
};

// The pool itself, with no virtual function, over any Upstream with
// allocate(bytes, alignment) and deallocate(p, bytes, alignment): use it
// directly through alloclab::allocator<T, basic_pool<U>> (over
// refusing_upstream with a fixed buffer, a firmware build links nothing of
// std::pmr), or as pool_resource, the std::pmr::memory_resource over it.
template <class Upstream>
class basic_pool {
 public:
  static constexpr std::size_t max_block_alignment = 4096;

  // Chunks from `upstream`, growing without bound.
  basic_pool(std::size_t block_size, Upstream* upstream, pool_options options = {})
      : block_size_(normalized_block_size(block_size, options.block_alignment)),
        block_alignment_(natural_alignment(block_size_)),
        upstream_(upstream),
        options_(options),
        next_chunk_blocks_(std::max<std::size_t>(options.first_chunk_blocks, 1)) {}

  // Blocks carved from `buffer` only: capacity is fixed. Oversize requests go
  // to `oversize_upstream`.
  basic_pool(std::size_t block_size, fixed_buffer buffer, pool_options options,
             Upstream* oversize_upstream)
      : basic_pool(block_size, oversize_upstream, options) {
    fixed_capacity_ = true;
    adopt_buffer(buffer.data, buffer.size);
  }

  basic_pool(const basic_pool&) = delete;
  basic_pool& operator=(const basic_pool&) = delete;
  ~basic_pool() { release_chunks(); }

  // Non-virtual fast path; hides memory_resource::allocate on purpose.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    if (fits(bytes, alignment)) {
      if (free_list_ != nullptr) {
        free_node* node = free_list_;
        free_list_ = node->next;
        return node;
      }
      if (cursor_ != chunk_end_) {
        std::byte* block = cursor_;
        cursor_ += block_size_;
        return block;
      }
      return allocate_from_new_chunk(bytes, alignment);
    }
    return allocate_oversize(bytes, alignment);
  }

  // Never throws of its own accord; an oversize block goes back to the upstream.
  // A fixed-buffer pool drops (and counts in stale_deallocations()) a block
  // its cursor has not carved since the last release(): pushing it would
  // hand it out twice.
  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    if (fits(bytes, alignment)) {
      if (fixed_capacity_ && !carved_since_release(p)) {
        ++stale_deallocations_;
        return;
      }
      free_list_ = ::new (p) free_node{free_list_};
      return;
    }
    upstream_->deallocate(p, bytes, alignment);
  }

  // Returns every chunk to the upstream (a fixed buffer is simply reset).
  // Blocks handed out before are invalid afterwards; of a fixed buffer, a
  // later free of one not yet carved again is dropped (see deallocate), but
  // one the cursor carved again is not told apart: wrap the pool in a
  // checked_resource to catch those (reissued_live_block). Oversize blocks
  // went straight to the upstream and are not affected.
  void release() noexcept {
    release_chunks();
    free_list_ = nullptr;
    if (fixed_capacity_) {
      cursor_ = buffer_begin_;
      chunk_end_ = buffer_end_;
    }
  }

  // Makes `blocks` blocks free so that as many allocations (with no
  // release() between) take nothing from the upstream: call it at start-up.
  // Takes at most one chunk, of the blocks missing (or the planned chunk, if
  // larger); a fixed-buffer pool without them throws pool_exhausted. After
  // an upstream failure the pool holds what it held. O(free blocks + blocks).
  void reserve(std::size_t blocks) {
    const std::size_t free = free_blocks();
    if (free >= blocks) return;
    if (fixed_capacity_)
      fail<pool_exhausted>("alloclab::pool_resource: buffer smaller than the reserve", block_size_,
                           block_alignment_);
    free_uncarved_blocks();
    take_chunk(std::max(next_chunk_blocks_, blocks - free));
  }
  // Blocks allocate can hand out before it needs a new chunk. O(free blocks).
  std::size_t free_blocks() const noexcept {
    std::size_t free = static_cast<std::size_t>(chunk_end_ - cursor_) / block_size_;
    for (const free_node* node = free_list_; node != nullptr; node = node->next) ++free;
    return free;
  }

  std::size_t block_size() const noexcept { return block_size_; }
  std::size_t block_alignment() const noexcept { return block_alignment_; }
  // Blocks in every chunk taken so far (or in the fixed buffer), whether
  // carved out yet or not, free or in use.
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t chunks() const noexcept { return chunks_; }
  std::size_t oversize_allocations() const noexcept { return oversize_allocations_; }
  // Frees dropped because they named a block of the fixed buffer not handed
  // out since the last release() (see deallocate).
  std::size_t stale_deallocations() const noexcept { return stale_deallocations_; }
  bool fixed_capacity() const noexcept { return fixed_capacity_; }
  Upstream* upstream() const noexcept { return upstream_; }

 private:
  struct free_node {
    free_node* next;
  };
  struct chunk_header {
    chunk_header* previous;
    std::size_t size;
    std::size_t alignment;
  };

  // The requested size, at least a free-list node, rounded up to a multiple
  // of the block alignment (see the rule at the top of this file).
  static std::size_t normalized_block_size(std::size_t requested, std::size_t alignment) {
    const std::size_t size = std::max(requested, sizeof(free_node));
    if (alignment == 0) alignment = alignof(std::max_align_t);
    alignment = std::max(alignment, alignof(free_node));
    bool overflow = false;
    const std::size_t rounded = detail::align_up(size, alignment, overflow);
    if (overflow || !detail::is_power_of_two(alignment) || alignment > max_block_alignment)
      fail<std::length_error>(
          "alloclab::pool_resource: block size or alignment cannot be laid out",
          "alloclab::pool_resource: block size or alignment cannot be laid out");
    return rounded;
  }
  // The largest power of two dividing the block size, capped at max_block_alignment.
  static std::size_t natural_alignment(std::size_t block_size) noexcept {
    return std::min(block_size & (~block_size + 1), max_block_alignment);
  }

  bool fits(std::size_t bytes, std::size_t alignment) const noexcept {
    return bytes <= block_size_ && alignment <= block_alignment_ &&
           detail::is_power_of_two(alignment);
  }

  bool carved_since_release(const void* p) const noexcept {
    const auto* block = static_cast<const std::byte*>(p);
    return block >= buffer_begin_ && block < cursor_;
  }

  void adopt_buffer(void* buffer, std::size_t size) noexcept {
    auto* begin = static_cast<std::byte*>(buffer);
    const std::size_t padding = buffer ? detail::padding_for(begin, block_alignment_) : 0;
    const std::size_t usable = size > padding ? size - padding : 0;
    const std::size_t blocks = usable / block_size_;
    buffer_begin_ = cursor_ = blocks ? begin + padding : nullptr;
    buffer_end_ = chunk_end_ = blocks ? cursor_ + blocks * block_size_ : nullptr;
    capacity_ = blocks;
  }

  [[gnu::noinline]] void* allocate_from_new_chunk(std::size_t bytes, std::size_t alignment) {
    if (fixed_capacity_)
      fail<pool_exhausted>("alloclab::pool_resource: buffer exhausted", bytes, alignment);
    const std::size_t blocks = next_chunk_blocks_;
    take_chunk(blocks);
    next_chunk_blocks_ = std::min(blocks * 2, std::max(options_.max_chunk_blocks, blocks));
    return allocate(bytes, alignment);
  }

  // Puts the current chunk's blocks not carved yet on the free list.
  void free_uncarved_blocks() noexcept {
    for (; cursor_ != chunk_end_; cursor_ += block_size_)
      free_list_ = ::new (cursor_) free_node{free_list_};
  }

  // A chunk of `blocks` blocks from the upstream becomes the current one.
  void take_chunk(std::size_t blocks) {
    const std::size_t header =
        (sizeof(chunk_header) + block_alignment_ - 1) & ~(block_alignment_ - 1);
    if (blocks > (SIZE_MAX - header) / block_size_)
      fail<std::bad_alloc>("alloclab::pool_resource: chunk size overflows");
    const std::size_t size = header + blocks * block_size_;
    const std::size_t chunk_alignment = std::max(block_alignment_, alignof(chunk_header));
    void* raw = upstream_->allocate(size, chunk_alignment);
    chunks_head_ = ::new (raw) chunk_header{chunks_head_, size, chunk_alignment};
    ++chunks_;
    capacity_ += blocks;
    cursor_ = static_cast<std::byte*>(raw) + header;
    chunk_end_ = cursor_ + blocks * block_size_;
  }

  [[gnu::noinline]] void* allocate_oversize(std::size_t bytes, std::size_t alignment) {
    detail::require_valid_alignment(alignment);
    detail::require_representable_size(bytes);
    if (options_.oversize == oversize_policy::throw_bad_alloc)
      fail<pool_exhausted>("alloclab::pool_resource: oversize request", bytes, alignment);
    void* p = upstream_->allocate(bytes, alignment);
    ++oversize_allocations_;
    return p;
  }

  void release_chunks() noexcept {
    while (chunks_head_ != nullptr) {
      chunk_header* previous = chunks_head_->previous;
      upstream_->deallocate(chunks_head_, chunks_head_->size, chunks_head_->alignment);
      chunks_head_ = previous;
    }
    if (!fixed_capacity_) {
      cursor_ = chunk_end_ = nullptr;
      capacity_ = 0;
      chunks_ = 0;
      next_chunk_blocks_ = std::max<std::size_t>(options_.first_chunk_blocks, 1);
    }
  }

  free_node* free_list_ = nullptr;
  std::byte* cursor_ = nullptr;
  std::byte* chunk_end_ = nullptr;
  std::size_t block_size_;
  std::size_t block_alignment_;
  Upstream* upstream_;
  pool_options options_;
  std::size_t next_chunk_blocks_;
  chunk_header* chunks_head_ = nullptr;
  std::byte* buffer_begin_ = nullptr;
  std::byte* buffer_end_ = nullptr;
  bool fixed_capacity_ = false;
  std::size_t capacity_ = 0;
  std::size_t chunks_ = 0;
  std::size_t oversize_allocations_ = 0;
  std::size_t stale_deallocations_ = 0;
};

// The pool as a std::pmr::memory_resource (its allocate and deallocate stay
// non-virtual; calls through memory_resource* reach them).
class pool_resource final : public detail::pmr_bridge<pool_resource>,
                            public basic_pool<std::pmr::memory_resource> {
 public:
  // Chunks from `upstream`, growing without bound.
  explicit pool_resource(std::size_t block_size,
                         std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
                         pool_options options = {})
      : basic_pool(block_size, upstream, options) {}

  // Blocks carved from `buffer` only: capacity is fixed. Oversize requests go
  // to `oversize_upstream` (by default none: they throw).
  pool_resource(std::size_t block_size, fixed_buffer buffer, pool_options options = {},
                std::pmr::memory_resource* oversize_upstream = null_resource())
      : basic_pool(block_size, buffer, options, oversize_upstream) {}

  // Hide memory_resource::allocate/deallocate on purpose.
  using basic_pool::allocate;
  using basic_pool::deallocate;
};

}  // namespace alloclab
