// alloclab/detail/size_classes.hpp: the size-class grid shared by the
// multipool resources. Private: not part of the public interface.
//
// Classes: 8, 16, ..., 64 (steps of 8), then four per power of two:
// 80, 96, 112, 128, 160, 192, 224, 256, ... A request (bytes, alignment) is
// served by the class of round_up(bytes, alignment). Every class size is a
// multiple of that rounded size's alignment (below 64 every class is a
// multiple of 8; in (2^k, 2^(k+1)] classes step by 2^(k-2), and a multiple of
// an alignment >= the step lies on the grid itself), so a block aligned to the
// largest power of two dividing its class size honours the request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "align.hpp"
#include "compiler.hpp"

namespace alloclab::detail {

inline constexpr std::size_t smallest_class_step = 8;
inline constexpr std::size_t fine_class_limit = 64;  // classes step by 8 up to here
inline constexpr std::size_t largest_class_limit = std::size_t{1} << 20;  // 1 MiB
inline constexpr std::size_t max_class_count = 8 + (20 - 6) * 4;

// The class index computed: one count of leading zeros and two shifts.
inline constexpr std::size_t computed_class_index(std::size_t rounded_minus_one) noexcept {
  if (rounded_minus_one < fine_class_limit) return rounded_minus_one >> 3;
  const unsigned octave = floor_log2(rounded_minus_one);  // size in (2^octave, 2^(octave+1)]
  const std::size_t quarter = (rounded_minus_one >> (octave - 2)) & 3;
  return 8 + (octave - 6) * 4 + quarter;
}

// Up to 4 KiB (the default largest class) the index is one load from a
// 512-byte table; above, it is computed. The table is the expected path and
// falls through (GCC laid it out of line before, two taken jumps per lookup);
// a default multipool never leaves it, so mixed sizes cannot mispredict.
inline constexpr std::size_t table_class_limit = 4096;
struct class_index_table {
  unsigned char index[table_class_limit / smallest_class_step] = {};
  constexpr class_index_table() {
    for (std::size_t i = 0; i < table_class_limit / smallest_class_step; ++i)
      index[i] = static_cast<unsigned char>(computed_class_index(i * smallest_class_step + 7));
  }
};
inline constexpr class_index_table small_class_indexes{};

// The table's answer; requires rounded_minus_one < table_class_limit.
inline constexpr std::size_t table_class_index(std::size_t rounded_minus_one) noexcept {
  return small_class_indexes.index[rounded_minus_one >> 3];
}

// Index of the smallest class holding `rounded` bytes, from `rounded - 1`
// (so that 0 wraps to SIZE_MAX and is rejected by the caller's bound check).
inline constexpr std::size_t class_index_from_minus_one(std::size_t rounded_minus_one) noexcept {
  if (ALLOCLAB_LIKELY(rounded_minus_one < table_class_limit))
    return table_class_index(rounded_minus_one);
  return computed_class_index(rounded_minus_one);
}

// The block size of class `index`; 0 past the largest class (no_class included).
inline constexpr std::size_t class_size(std::size_t index) noexcept {
  if (index >= max_class_count) return 0;
  if (index < 8) return (index + 1) * smallest_class_step;
  const std::size_t octave = 6 + (index - 8) / 4;
  const std::size_t quarter = (index - 8) % 4;
  return (std::size_t{1} << octave) + (quarter + 1) * (std::size_t{1} << (octave - 2));
}

// The largest power of two dividing `size`: the alignment every block of a
// class gets when chunks are aligned to it.
inline constexpr std::size_t class_alignment(std::size_t size) noexcept {
  return size & (~size + 1);
}

// `bytes` rounded up to the power of two `alignment`, minus one; SIZE_MAX for
// 0 bytes or when rounding would wrap (both leave the fast path).
inline constexpr std::size_t rounded_minus_one(std::size_t bytes, std::size_t alignment) noexcept {
  return ((bytes + alignment - 1) & ~(alignment - 1)) - 1;
}

inline constexpr std::size_t no_class = static_cast<std::size_t>(-1);

// The class serving (bytes, alignment) in a pool whose largest class is `max_block_size`, or
// no_class when the request is oversize or its alignment is not a power of two.
inline constexpr std::size_t pooled_class_of(std::size_t bytes, std::size_t alignment,
                                             std::size_t max_block_size) noexcept {
  const std::size_t minus_one = rounded_minus_one(bytes ? bytes : 1, alignment);
  if (minus_one >= max_block_size || !is_power_of_two(alignment)) return no_class;
  return class_index_from_minus_one(minus_one);
}

// The largest class holding `requested`, within [8, 1 MiB].
inline constexpr std::size_t normalized_max_block_size(std::size_t requested) noexcept {
  const std::size_t bounded = requested < smallest_class_step   ? smallest_class_step
                              : requested > largest_class_limit ? largest_class_limit
                                                                : requested;
  return class_size(class_index_from_minus_one(bounded - 1));
}

// Moves the next few blocks in [cursor, end) onto the empty free list `head`
// and returns the block before them. Bounded (at most 32 blocks or 4 KiB), so
// a new chunk's pages are touched as they are used. Requires cursor != end.
template <class Node>
inline void* take_blocks(std::byte*& cursor, std::byte* end, std::size_t block_size,
                         Node*& head) noexcept {
  constexpr std::size_t batch_bytes = 4096;
  constexpr std::size_t batch_blocks = 32;
  const std::size_t left = static_cast<std::size_t>(end - cursor) / block_size;
  std::size_t batch = batch_bytes / block_size;
  batch = batch < 1 ? 1 : batch > batch_blocks ? batch_blocks : batch;
  batch = batch < left ? batch : left;
  std::byte* first = cursor;
  cursor += batch * block_size;
  for (std::byte* block = cursor - block_size; block != first; block -= block_size)
    head = ::new (block) Node{head};
  return first;
}

static_assert(class_size(class_index_from_minus_one(64 - 1)) == 64);
static_assert(class_index_from_minus_one(1000 - 1) == computed_class_index(1000 - 1));
static_assert(class_index_from_minus_one(9 - 1) == computed_class_index(9 - 1));
static_assert(class_size(class_index_from_minus_one(65 - 1)) == 80);
static_assert(class_size(class_index_from_minus_one(129 - 1)) == 160);
static_assert(class_size(class_index_from_minus_one(4096 - 1)) == 4096);
static_assert(class_size(max_class_count - 1) == largest_class_limit);
static_assert(class_size(max_class_count) == 0 && class_size(static_cast<std::size_t>(-1)) == 0);
static_assert(class_index_from_minus_one(largest_class_limit - 1) == max_class_count - 1);

}  // namespace alloclab::detail
