// alloclab/multipool_resource.hpp: size-class pools for any request up to a
// configurable maximum, O(1) allocate and deallocate.
//
// Requests are rounded up to a size class: 8, 16, ..., 64 bytes in steps of
// 8, then four classes per power of two (80, 96, 112, 128, 160, ...), up to
// `multipool_options::max_block_size` (default 4 KiB, at most 1 MiB). Each
// class has an intrusive free list, refilled a few blocks at a time from its
// chunks, so the hot path is a class index (one load from a 512-byte table up
// to 4 KiB, a count of leading zeros and two shifts above) and a list pop or
// push on a head kept with the other heads, 8 to a cache line. Worst-case
// internal waste (alignment <= 8): 7 bytes for requests up to 64 bytes, under
// 20% of the block (< 25% of the request) above that.
// class_stats() walks a free list: it is for diagnostics, not hot paths.
// class_of() says no_class for a request no class serves, and class_stats()
// of an index past the last class (no_class included) is all zeros, so
// class_stats(class_of(n)) is safe for any n (Boost's pool_index() says
// pool_count() instead).
//
// Alignment rule: a request (bytes, alignment) is served by the class of
// bytes rounded up to `alignment`, whose blocks are all aligned to
// `alignment`. So every power-of-two alignment is honoured, and one up to
// `max_block_size` stays in the pools (GCC bug 118681 is the opposite case).
//
// Chunks come from the upstream, or from a caller's buffer with a hard
// capacity (`multipool_exhausted` when it is full), passed as a named
// `fixed_buffer` (pool_resource.hpp) so braced options never select it. A request beyond the
// largest class follows `oversize_policy`: forwarded to the upstream and
// counted, or thrown.
//
// Example:
//   #include <alloclab/allocator.hpp>
//   #include <alloclab/multipool_resource.hpp>
//   #include <map>
//   #include <memory_resource>
//   #include <string>
//   #include <vector>
//
//   int main() {
//     alloclab::multipool_resource pool{std::pmr::new_delete_resource()};
//     // Mixed sizes through pmr: strings, vectors and map nodes share the classes.
//     std::pmr::map<int, std::pmr::string> names{&pool};
//     for (int i = 0; i < 100; ++i) names.emplace(i, std::string(20 + i, 'x'));
//     // The same pool without virtual calls, through alloclab::allocator.
//     std::vector<double, alloclab::allocator<double, alloclab::multipool_resource>> values{
//         alloclab::allocator<double, alloclab::multipool_resource>{&pool}};
//     for (int i = 0; i < 300; ++i) values.push_back(i);  // grows to 512 doubles: 4 KiB
//     const auto strings = pool.class_stats(pool.class_of(100, alignof(char)));
//     return strings.blocks_in_use > 0 && pool.oversize_allocations() == 0 ? 0 : 1;
//   }
//
// Bounds: allocate O(1) (the class index, a list pop; an empty list's refill
// links at most 32 blocks or 4 KiB, plus one upstream call for a new chunk);
// deallocate O(1) (the class index, a push); reserve O(free blocks of the
// class + blocks), for start-up; class_stats O(free blocks of the class);
// release and the destructor O(chunks).
//
// Not thread-safe: one multipool per thread, or concurrent_multipool_resource.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory_resource>
#include <new>

#include "detail/align.hpp"
#include "detail/compiler.hpp"
#include "detail/pmr_bridge.hpp"
#include "detail/request_size.hpp"
#include "detail/size_classes.hpp"
#include "pool_resource.hpp"
#include "failure.hpp"
#include "null_resource.hpp"

namespace alloclab {

struct multipool_options {
  std::size_t max_block_size = 4096;  // rounded up to a class; at most 1 MiB
  oversize_policy oversize = oversize_policy::forward_to_upstream;
  std::size_t first_chunk_bytes = 4096;     // a class's first chunk (at least one block)
  std::size_t max_chunk_bytes = 64 * 1024;  // chunks double up to this (at least one block)
};

// Thrown when a fixed-capacity multipool is full or an oversize request is refused.
class multipool_exhausted : public detail::refused_request {
 public:
  using refused_request::refused_request;
  const char* what() const noexcept override {
    return "alloclab::multipool_resource: no block available for this request";
  }
};

// One size class, as class_stats() reports it.
struct multipool_class_stats {
  std::size_t block_size = 0;
  std::size_t blocks_in_use = 0;
  std::size_t blocks_free = 0;  // in this class's chunks, carved or not yet
  std::size_t chunks = 0;
};

// The multipool itself, with no virtual function, over any Upstream with
// allocate(bytes, alignment) and deallocate(p, bytes, alignment): use it
// directly through alloclab::allocator<T, basic_multipool<U>> (over
// refusing_upstream with a fixed buffer, a firmware build links nothing of
// std::pmr), or as multipool_resource, the std::pmr::memory_resource over it.
template <class Upstream>
class basic_multipool {
 public:
  static constexpr std::size_t no_class = detail::no_class;

  // Chunks from `upstream`, growing without bound.
  explicit basic_multipool(Upstream* upstream, multipool_options options = {})
      : upstream_(upstream),
        options_(options),
        max_block_size_(detail::normalized_max_block_size(options.max_block_size)),
        class_count_(detail::class_index_from_minus_one(max_block_size_ - 1) + 1) {
    reset_classes();
  }

  // Chunks carved from `buffer` only: capacity is fixed. Oversize requests go
  // to `oversize_upstream`.
  basic_multipool(fixed_buffer buffer, multipool_options options, Upstream* oversize_upstream)
      : basic_multipool(oversize_upstream, options) {
    buffer_begin_ = buffer_cursor_ = static_cast<std::byte*>(buffer.data);
    buffer_end_ = buffer.data ? buffer_begin_ + buffer.size : nullptr;
    fixed_capacity_ = true;
  }

  basic_multipool(const basic_multipool&) = delete;
  basic_multipool& operator=(const basic_multipool&) = delete;
  ~basic_multipool() { release_chunks(); }

  // Non-virtual fast path; hides memory_resource::allocate on purpose.
  // One compare and one table load reach the class of any request up to
  // min(max_block_size(), 4 KiB); larger classes take an out-of-line call.
  void* allocate(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < table_bound_ && detail::is_power_of_two(alignment))
      return allocate_from(detail::table_class_index(rounded_minus_one), bytes, alignment);
    return allocate_outside_table(bytes, alignment);
  }

  void deallocate(void* p, std::size_t bytes, std::size_t alignment = alignof(std::max_align_t)) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < table_bound_ && detail::is_power_of_two(alignment))
      return deallocate_to(detail::table_class_index(rounded_minus_one), p);
    deallocate_outside_table(p, bytes, alignment);
  }

  // Returns every chunk to the upstream (a fixed buffer is simply reset).
  // Pooled blocks handed out before are invalid afterwards; oversize blocks
  // went straight to the upstream and are not affected.
  void release() noexcept {
    release_chunks();
    reset_classes();
    buffer_cursor_ = buffer_begin_;
  }

  // Makes `blocks` blocks of the class serving (bytes, alignment) free, so
  // that as many such allocations (with no release() between) take nothing
  // from the upstream: call it at start-up, once per class the program uses.
  // Takes at most one chunk from the upstream, of the blocks missing (or the
  // planned chunk, if larger); a fixed buffer gives what it has left and
  // throws multipool_exhausted if that is not enough. An oversize request has
  // no class: multipool_exhausted. After a failure the pool holds what it
  // held. O(free blocks of the class + blocks).
  void reserve(std::size_t bytes, std::size_t alignment, std::size_t blocks) {
    const std::size_t index = class_of(bytes, alignment);
    if (index == no_class)
      fail<multipool_exhausted>("alloclab::multipool_resource: no class to reserve", bytes,
                                alignment);
    size_class& c = classes_[index];
    for (std::size_t free = class_stats(index).blocks_free; free < blocks;) {
      free_uncarved_blocks(index);
      free += add_chunk(c, std::max(c.next_chunk_blocks, blocks - free), bytes, alignment);
    }
  }

  // The class serving (bytes, alignment), or no_class for an oversize request.
  std::size_t class_of(std::size_t bytes, std::size_t alignment) const noexcept {
    return detail::pooled_class_of(bytes, alignment, max_block_size_);
  }
  std::size_t class_count() const noexcept { return class_count_; }
  // Walks the class's free list: O(free blocks), meant for diagnostics and
  // tests. All zeros for index >= class_count() (no_class included).
  multipool_class_stats class_stats(std::size_t index) const noexcept {
    if (index >= class_count_) return {};
    const size_class& c = classes_[index];
    std::size_t free = static_cast<std::size_t>(c.end - c.cursor) / c.block_size;
    for (const free_node* node = free_lists_[index]; node != nullptr; node = node->next) ++free;
    return {c.block_size, c.capacity - free, free, c.chunks};
  }

  std::size_t max_block_size() const noexcept { return max_block_size_; }
  std::size_t oversize_allocations() const noexcept { return oversize_allocations_; }
  bool fixed_capacity() const noexcept { return fixed_capacity_; }
  Upstream* upstream() const noexcept { return upstream_; }
  const multipool_options& options() const noexcept { return options_; }

 private:
  struct free_node {
    free_node* next;
  };
  // What refills a class; the fast path touches free_lists_ only.
  struct size_class {
    std::byte* cursor;  // the current chunk's blocks not yet on the free list
    std::byte* end;
    std::size_t block_size;
    std::size_t capacity;  // blocks in this class's chunks
    std::size_t chunks;
    std::size_t next_chunk_blocks;
  };
  // At the end of each upstream chunk, so the blocks keep their alignment.
  struct chunk_trailer {
    chunk_trailer* previous;
    std::byte* begin;
    std::size_t size;
    std::size_t alignment;
  };

  std::size_t blocks_for(std::size_t chunk_bytes, std::size_t block_size) const noexcept {
    return std::max<std::size_t>(chunk_bytes / block_size, 1);
  }

  void reset_classes() noexcept {
    for (std::size_t i = 0; i < classes_.size(); ++i) {
      const std::size_t size = detail::class_size(i);
      classes_[i] = {nullptr, nullptr, size, 0, 0, blocks_for(options_.first_chunk_bytes, size)};
    }
    free_lists_.fill(nullptr);
  }

  // The hot path: one list pop, no call unless the list is empty (and no
  // recursion, so it inlines).
  void* allocate_from(std::size_t index, std::size_t bytes, std::size_t alignment) {
    free_node*& head = free_lists_[index];
    free_node* node = head;
    if (ALLOCLAB_LIKELY(node != nullptr)) {
      head = node->next;
      return node;
    }
    return refill_and_allocate(index, bytes, alignment);
  }

  void deallocate_to(std::size_t index, void* p) noexcept {
    free_lists_[index] = ::new (p) free_node{free_lists_[index]};
  }

  // Moves the next few blocks of the current chunk (a new one if it is used
  // up) onto the free list and returns the first.
  [[gnu::noinline]] void* refill_and_allocate(std::size_t index, std::size_t bytes,
                                              std::size_t alignment) {
    size_class& c = classes_[index];
    if (c.cursor == c.end) {
      const std::size_t blocks = add_chunk(c, c.next_chunk_blocks, bytes, alignment);
      c.next_chunk_blocks = std::max(
          std::min(blocks * 2, blocks_for(options_.max_chunk_bytes, c.block_size)), blocks);
    }
    return detail::take_blocks(c.cursor, c.end, c.block_size, free_lists_[index]);
  }

  // Puts the blocks of the class's current chunk not carved yet on its free list.
  void free_uncarved_blocks(std::size_t index) noexcept {
    size_class& c = classes_[index];
    while (c.cursor != c.end)
      deallocate_to(index, detail::take_blocks(c.cursor, c.end, c.block_size, free_lists_[index]));
  }

  // A chunk of `wanted` blocks (fewer if a fixed buffer has no more) becomes
  // the class's current one; returns its blocks. (bytes, alignment): the request, for errors.
  std::size_t add_chunk(size_class& c, std::size_t wanted, std::size_t bytes,
                        std::size_t alignment) {
    const std::size_t blocks = fixed_capacity_ ? carve_from_buffer(c, wanted, bytes, alignment)
                                               : take_from_upstream(c, wanted);
    ++c.chunks;
    c.capacity += blocks;
    return blocks;
  }

  // Throws std::bad_alloc for a chunk whose size would pass SIZE_MAX (as pool_resource).
  std::size_t take_from_upstream(size_class& c, std::size_t blocks) {
    if (blocks > (SIZE_MAX - sizeof(chunk_trailer)) / c.block_size)
      fail<std::bad_alloc>("alloclab::multipool_resource: chunk size overflows");
    const std::size_t span = blocks * c.block_size;
    const std::size_t size = span + sizeof(chunk_trailer);
    const std::size_t alignment =
        std::max(detail::class_alignment(c.block_size), alignof(chunk_trailer));
    auto* begin = static_cast<std::byte*>(upstream_->allocate(size, alignment));
    chunks_ = ::new (begin + span) chunk_trailer{chunks_, begin, size, alignment};
    c.cursor = begin;
    c.end = begin + span;
    return blocks;
  }

  // Takes the next chunk from the buffer, smaller than planned if that is all
  // that is left; throws when not even one block fits.
  std::size_t carve_from_buffer(size_class& c, std::size_t wanted, std::size_t bytes,
                                std::size_t alignment) {
    const std::size_t padding =
        buffer_cursor_ ? detail::padding_for(buffer_cursor_, detail::class_alignment(c.block_size))
                       : 0;
    const auto available = static_cast<std::size_t>(buffer_end_ - buffer_cursor_);
    const std::size_t fitting = available > padding ? (available - padding) / c.block_size : 0;
    const std::size_t blocks = std::min(wanted, fitting);
    if (blocks == 0)
      fail<multipool_exhausted>("alloclab::multipool_resource: buffer exhausted", bytes, alignment);
    c.cursor = buffer_cursor_ + padding;
    c.end = c.cursor + blocks * c.block_size;
    buffer_cursor_ = c.end;
    return blocks;
  }

  // A class above the table's reach, or no class at all.
  [[gnu::noinline]] void* allocate_outside_table(std::size_t bytes, std::size_t alignment) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < max_block_size_ && detail::is_power_of_two(alignment))
      return allocate_from(detail::class_index_from_minus_one(rounded_minus_one), bytes, alignment);
    return allocate_outside_classes(bytes, alignment);
  }

  [[gnu::noinline]] void deallocate_outside_table(void* p, std::size_t bytes,
                                                  std::size_t alignment) {
    const std::size_t rounded_minus_one = detail::rounded_minus_one(bytes, alignment);
    if (rounded_minus_one < max_block_size_ && detail::is_power_of_two(alignment))
      return deallocate_to(detail::class_index_from_minus_one(rounded_minus_one), p);
    deallocate_outside_classes(p, bytes, alignment);
  }

  void* allocate_outside_classes(std::size_t bytes, std::size_t alignment) {
    detail::require_valid_alignment(alignment);
    detail::require_representable_size(bytes);
    if (bytes == 0) {  // served as 1 byte
      const std::size_t index = class_of(1, alignment);
      if (index != no_class) return allocate_from(index, 1, alignment);
      bytes = 1;
    }
    if (options_.oversize == oversize_policy::throw_bad_alloc)
      fail<multipool_exhausted>("alloclab::multipool_resource: oversize request", bytes, alignment);
    void* p = upstream_->allocate(bytes, alignment);
    ++oversize_allocations_;
    return p;
  }

  void deallocate_outside_classes(void* p, std::size_t bytes, std::size_t alignment) {
    if (bytes == 0) {
      const std::size_t index = class_of(1, alignment);
      if (index != no_class) return deallocate_to(index, p);
      bytes = 1;
    }
    upstream_->deallocate(p, bytes, alignment);
  }

  void release_chunks() noexcept {
    while (chunks_ != nullptr) {
      chunk_trailer* previous = chunks_->previous;
      upstream_->deallocate(chunks_->begin, chunks_->size, chunks_->alignment);
      chunks_ = previous;
    }
  }

  // The heads apart from the records: 64 heads in 8 cache lines (inside a
  // record, 56 bytes each, they spread over 56 lines).
  std::array<free_node*, detail::max_class_count> free_lists_;
  std::array<size_class, detail::max_class_count> classes_;
  Upstream* upstream_;
  multipool_options options_;
  std::size_t max_block_size_;
  std::size_t class_count_;
  // Requests whose rounded size minus one is below this take the table.
  std::size_t table_bound_ = std::min(max_block_size_, detail::table_class_limit);
  chunk_trailer* chunks_ = nullptr;
  std::byte* buffer_begin_ = nullptr;
  std::byte* buffer_cursor_ = nullptr;
  std::byte* buffer_end_ = nullptr;
  bool fixed_capacity_ = false;
  std::size_t oversize_allocations_ = 0;
};

// The multipool as a std::pmr::memory_resource (its allocate and deallocate
// stay non-virtual; calls through memory_resource* reach them).
class multipool_resource : public detail::pmr_bridge<multipool_resource>,
                           public basic_multipool<std::pmr::memory_resource> {
 public:
  // Chunks from `upstream`, growing without bound.
  explicit multipool_resource(
      std::pmr::memory_resource* upstream = std::pmr::get_default_resource(),
      multipool_options options = {})
      : basic_multipool(upstream, options) {}

  // Chunks carved from `buffer` only: capacity is fixed. Oversize requests go
  // to `oversize_upstream` (by default none: they throw).
  explicit multipool_resource(fixed_buffer buffer, multipool_options options = {},
                              std::pmr::memory_resource* oversize_upstream = null_resource())
      : basic_multipool(buffer, options, oversize_upstream) {}

  // Hide memory_resource::allocate/deallocate on purpose.
  using basic_multipool::allocate;
  using basic_multipool::deallocate;
};

}  // namespace alloclab
