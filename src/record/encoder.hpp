// The encoder: each thread's events into its own buffer (docs/trace-format.md), with a timestamp
// and RSS sample now and then, and the buffer written as one chunk when full. The hot functions
// are inline here; nothing takes a lock but the block table's shard lock, once it is shared.
#pragma once

#include <stddef.h>

#include <atomic>
#include <cstdint>

#include "recorder_state.hpp"

namespace alloclab::record {

/// Writes the thread's buffer as one chunk and empties it.
void flush(thread_state& st) noexcept;
// Every `clock_every_events` events: a timestamp when a millisecond passed, an RSS sample when
// 100 ms passed since any thread's last one.
void take_timestamp(thread_state& st) noexcept;
void record_new(thread_state& st, fmt::op kind, void* p, size_t size,
                size_t alignment = 0) noexcept;
// A block reference (realloc, malloc_usable_size) of `p` whose table entry is `key` when `known`.
void put_ref(thread_state& st, void* p, bool known, std::uint64_t key) noexcept;
void end_thread(thread_state& st) noexcept;

ALLOCLAB_HOT void put(thread_state& st, std::uint64_t v) noexcept {
  st.cursor = fmt::put_varint(st.cursor, v);
}
ALLOCLAB_HOT void put_op(thread_state& st, fmt::op o) noexcept {
  put(st, (static_cast<std::uint64_t>(o) << 2) | 3);
}

// Called after each event was encoded.
ALLOCLAB_HOT void event_done(thread_state& st) noexcept {
  ++st.events;
  if (--st.clock_countdown == 0) take_timestamp(st);
  if (st.cursor >= st.buffer + fmt::chunk_capacity) flush(st);
  std::atomic_signal_fence(std::memory_order_release);
  st.committed = st.cursor;
}

inline std::uint64_t block_key(const thread_state& st, std::uint64_t id) noexcept {
  return (static_cast<std::uint64_t>(st.index) << id_bits) | id;
}

/// Registers a new block under the next id (its event is encoded by the caller).
ALLOCLAB_HOT void new_block(thread_state& st, void* p) noexcept {
  blocks().insert(reinterpret_cast<std::uintptr_t>(p), block_key(st, st.next_id++));
}

ALLOCLAB_HOT void put_size(thread_state& st, std::uint64_t size) noexcept {
  put(st, fmt::zigzag(size, st.previous_size));
  st.previous_size = size;
}

ALLOCLAB_HOT void record_malloc(thread_state& st, void* p, size_t size) noexcept {
  if (p == nullptr) {
    put_op(st, fmt::op::failed);
    put(st, fmt::malloc_kind);
    put(st, size);
  } else {
    blocks().prefetch(reinterpret_cast<std::uintptr_t>(p));  // encoding overlaps the miss
    put(st, (fmt::zigzag(size, st.previous_size) << 2) | 1);
    st.previous_size = size;
    new_block(st, p);
  }
  event_done(st);
}

// The free of the block whose table entry was `key` (when `known`).
ALLOCLAB_HOT void put_free(thread_state& st, bool known, std::uint64_t key) noexcept {
  if (!known) {
    unknown_frees.fetch_add(1, std::memory_order_relaxed);
    put_op(st, fmt::op::free_unknown);
  } else if ((key >> id_bits) == st.index) {
    put(st, (st.next_id - 1 - (key & id_mask)) << 1);
  } else {
    const auto owner = static_cast<std::uint32_t>(key >> id_bits);
    put_op(st, fmt::op::free_cross);
    put(st, owner);
    put(st, fmt::zigzag(key & id_mask, st.cross_ids.exchange(owner, key & id_mask)));
  }
}

ALLOCLAB_HOT void record_free(thread_state& st, void* p) noexcept {
  std::uint64_t key = 0;
  const bool known = blocks().remove(reinterpret_cast<std::uintptr_t>(p), key);
  put_free(st, known, key);
  event_done(st);
}

}  // namespace alloclab::record
