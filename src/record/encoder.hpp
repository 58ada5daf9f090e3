// The encoder: each thread's events into its own buffer (docs/trace-format.md), with a timestamp
// and RSS sample now and then, and the buffer written as one chunk when full. The hot functions
// are inline here and lock-free; an event is written through a local cursor and published by one
// store of st.cursor, so the buffer only ever holds whole events (a signal may cut one short).
#pragma once

#include <stddef.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "recorder_state.hpp"

namespace alloclab::record {

/// Writes the thread's buffer as one chunk and empties it.
void flush(thread_state& st) noexcept;
/// Every `clock_every_events` events: counts them, and writes a timestamp when a millisecond
/// passed and an RSS sample when 100 ms passed since any thread's last one.
void tick(thread_state& st) noexcept;
/// An allocation that returned null.
void record_failed(thread_state& st, std::uint64_t kind, size_t size) noexcept;
/// calloc's neighbours off the hot path: the memalign family, valloc, pvalloc.
void record_new(thread_state& st, fmt::op kind, void* p, size_t size,
                size_t alignment = 0) noexcept;
/// A block reference (realloc, malloc_usable_size) of `p`, whose block is `block`.
std::uint8_t* put_ref(const thread_state& st, std::uint8_t* out, void* p, block_ref block) noexcept;
/// A free (or glibc's realloc(p, 0)) of a block that is not this thread's, or unknown.
std::uint8_t* put_other_free(thread_state& st, std::uint8_t* out, block_ref block) noexcept;
/// The thread's thread_end event and last chunk.
void end_thread(thread_state& st) noexcept;

/// A varint, with the one- and two-byte cases (most events) inline and without a branch between
/// them: one 16-bit store (v < 128: v and 0; else v's low 7 bits | 0x80, then v >> 7). May write
/// one byte past the varint (the buffer has room for it).
ALLOCLAB_HOT std::uint8_t* put(std::uint8_t* out, std::uint64_t v) noexcept {
  if (__builtin_expect(v >= 0x4000, 0)) return fmt::put_varint(out, v);
  const std::uint64_t high = v & ~std::uint64_t{0x7f};
  const std::uint64_t two = high != 0;
  const auto both = static_cast<std::uint16_t>(v + high + (two << 7));
  std::memcpy(out, &both, sizeof both);  // little-endian, as the format
  return out + 1 + two;
}
ALLOCLAB_HOT std::uint8_t* put_op(std::uint8_t* out, fmt::op o) noexcept {
  *out = static_cast<std::uint8_t>((static_cast<unsigned>(o) << 2) | 3);  // every opcode < 32
  return out + 1;
}
ALLOCLAB_HOT std::uint8_t* put_size(thread_state& st, std::uint8_t* out, std::uint64_t size,
                                    unsigned shift = 0, std::uint64_t tag = 0) noexcept {
  out = put(out, (fmt::zigzag(size, st.previous_size) << shift) | tag);
  st.previous_size = size;
  return out;
}

/// Publishes the event that ends at `out`; true when a tick is due (after_publish() then counts
/// the events, flushes a full buffer, and reads the clock).
ALLOCLAB_HOT bool publish(thread_state& st, std::uint8_t* out) noexcept {
  std::atomic_signal_fence(std::memory_order_release);
  st.cursor = out;
  return __builtin_expect(--st.clock_countdown == 0, 0);
}
void after_publish(thread_state& st) noexcept;
ALLOCLAB_HOT void commit(thread_state& st, std::uint8_t* out) noexcept {
  if (publish(st, out)) after_publish(st);
}

/// The table entry of the next block this thread allocates.
ALLOCLAB_HOT std::uint64_t next_block(thread_state& st) noexcept {
  return ++st.allocated;
}
/// The age of this thread's block whose table entry is `entry`: beyond id_mask when it is not
/// one of this thread's entries.
ALLOCLAB_HOT std::uint64_t age_of(const thread_state& st, std::uint64_t entry) noexcept {
  return st.allocated - entry;
}

// A block that malloc (calloc) returned, after reserve() made room for it in the table: its entry
// and its event. True when a tick is due (after_publish()).
ALLOCLAB_HOT bool record_malloc(thread_state& st, void* p, size_t size) noexcept {
  st.blocks.insert_reserved(reinterpret_cast<std::uintptr_t>(p), next_block(st));
  return publish(st, put_size(st, st.cursor, size, 2, 1));
}
ALLOCLAB_HOT bool record_calloc(thread_state& st, void* p, size_t bytes) noexcept {
  st.blocks.insert_reserved(reinterpret_cast<std::uintptr_t>(p), next_block(st));
  return publish(st, put_size(st, put_op(st.cursor, fmt::op::calloc), bytes));
}

/// The free of `block`.
ALLOCLAB_HOT std::uint8_t* put_free(thread_state& st, std::uint8_t* out, block_ref block) noexcept {
  if (block.owner == &st) return put(out, age_of(st, block.entry) << 1);
  return put_other_free(st, out, block);
}

}  // namespace alloclab::record
