// The thread-local path: each thread's state, made on its first event; the busy flag every
// recorded call raises (no lock, no fence); finding the owner of another thread's block; thread
// exit and fork.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder_state.hpp"

namespace alloclab::record {

/// The calling thread's state for a hook that found `current` null: made on the thread's first
/// call (and set as `current`); null when the call must pass through unrecorded (the recorder's
/// own calls, a thread that ended, no recording).
thread_state* state_for_slow_path() noexcept;
/// pthread key destructor: the thread's last events and its end, written as a chunk.
void on_thread_exit(void* state) noexcept;
/// Every thread's state is dropped (a forked child starting its own trace).
void forget_all_threads() noexcept;
/// A free (or realloc) by a thread whose recording ended (a later thread-key destructor): not
/// recorded, but `p`'s entry goes, so that a block reusing the address is not taken for it.
void forget_after_end(void* p) noexcept;

/// Takes `key` out of the table of the thread that allocated it (not `st`), for a cross-thread
/// free or realloc. No owner when no table holds it (a pointer the recorder never saw allocated).
block_ref take_foreign_block(thread_state& st, std::uintptr_t key) noexcept;
/// The same without removing it (malloc_usable_size).
block_ref find_foreign_block(thread_state& st, std::uintptr_t key) noexcept;

/// `key`'s block, taken out of this thread's table or another's.
ALLOCLAB_HOT block_ref take_block(thread_state& st, std::uintptr_t key) noexcept {
  const std::uint64_t entry = st.blocks.take(key);
  if (__builtin_expect(entry != block_table::absent, 1)) return {&st, entry};
  if (!threads_share.load(std::memory_order_relaxed)) return {};
  return take_foreign_block(st, key);
}
/// `key`'s block, in this thread's table or another's.
inline block_ref find_block(thread_state& st, std::uintptr_t key) noexcept {
  const std::uint64_t entry = st.blocks.find(key);
  if (entry != block_table::absent) return {&st, entry};
  if (!threads_share.load(std::memory_order_relaxed)) return {};
  return find_foreign_block(st, key);
}

// While a thread is inside an event it is `busy`; finish_recording() flushes only threads that
// are not (membarrier makes the check sound without a fence on this path).
ALLOCLAB_HOT bool enter(thread_state& st) noexcept {
  st.busy.store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(recording.load(std::memory_order_relaxed), 1)) return true;
  st.busy.store(0, std::memory_order_release);
  return false;
}
ALLOCLAB_HOT void leave(thread_state& st) noexcept {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  st.busy.store(0, std::memory_order_release);
}

}  // namespace alloclab::record
