#include "threads.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "encoder.hpp"

namespace alloclab::record {

namespace {

constexpr std::uint32_t max_threads = std::uint32_t{1} << 20;  // the format's limit

// The first thread frees before it takes the block's entry out (the real free overlaps the
// table's cache miss). The second one turns threads_share on and waits until no other thread is
// inside an event: membarrier() makes every thread either show its `busy` flag here or see
// threads_share in its next event (the fast path needs no fence).
void start_sharing(thread_state* others) noexcept {
  threads_share.store(true, std::memory_order_seq_cst);
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  for (thread_state* st = others; st != nullptr; st = st->next_state) {
    while (st->busy.load(std::memory_order_acquire) != 0) sched_yield();
  }
}

thread_state* new_thread_state() noexcept {
  void* memory = map_memory(sizeof(thread_state));
  void* buffer = map_memory(buffer_bytes);
  const std::uint32_t index = thread_count.fetch_add(1, std::memory_order_relaxed);
  if (memory == nullptr || buffer == nullptr || index >= max_threads) {
    if (memory != nullptr) munmap(memory, sizeof(thread_state));
    if (buffer != nullptr) munmap(buffer, buffer_bytes);
    inside = true;  // this thread passes through from now on
    return nullptr;
  }
  auto* st = new (memory) thread_state();
  st->index = index;
  st->buffer = static_cast<std::uint8_t*>(buffer);
  st->limit = st->buffer + fmt::chunk_capacity;
  st->last_us = elapsed_us(CLOCK_MONOTONIC);
  std::uint8_t* out = put_op(st->buffer, fmt::op::thread_start);
  out = put(out, static_cast<std::uint64_t>(syscall(SYS_gettid)));
  st->cursor = put(out, st->last_us);
  {
    const inside_recorder unrecorded;
    pthread_setspecific(thread_key, st);  // may allocate
    pthread_mutex_lock(&write_lock);
    st->next_state = all_states.load(std::memory_order_relaxed);
    all_states.store(st, std::memory_order_release);
    pthread_mutex_unlock(&write_lock);
  }
  if (st->index > 0 && !threads_share.load(std::memory_order_relaxed))
    start_sharing(st->next_state);
  own_state = current = st;
  return st;
}

template <bool remove>
block_ref foreign_block(thread_state& st, std::uintptr_t key) noexcept {
  const auto look = [&](thread_state* owner) {
    return remove ? owner->blocks.take_foreign(key) : owner->blocks.find_foreign(key);
  };
  thread_state* hint = st.last_owner;
  if (hint != nullptr) {
    if (const std::uint64_t entry = look(hint); entry != block_table::absent) return {hint, entry};
  }
  for (thread_state* owner = all_states.load(std::memory_order_acquire); owner != nullptr;
       owner = owner->next_state) {
    if (owner == &st || owner == hint) continue;
    if (const std::uint64_t entry = look(owner); entry != block_table::absent) {
      st.last_owner = owner;
      return {owner, entry};
    }
  }
  return {};
}

}  // namespace

thread_state* state_for_slow_path() noexcept {
  if (inside || own_state != nullptr || !recording.load(std::memory_order_acquire)) return nullptr;
  return new_thread_state();
}

block_ref take_foreign_block(thread_state& st, std::uintptr_t key) noexcept {
  return foreign_block<true>(st, key);
}

block_ref find_foreign_block(thread_state& st, std::uintptr_t key) noexcept {
  return foreign_block<false>(st, key);
}

void on_thread_exit(void* state) noexcept {
  auto* st = static_cast<thread_state*>(state);
  inside = true;  // later calls from other TLS destructors pass through
  current = nullptr;
  if (st != own_state || !recording.load(std::memory_order_acquire)) return;
  st->busy.store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (recording.load(std::memory_order_relaxed)) {
    end_thread(*st);
    munmap(st->buffer, buffer_bytes);  // its table stays: others may free its blocks
    st->buffer = st->cursor = st->limit = nullptr;
  }
  st->busy.store(0, std::memory_order_release);
}

void forget_after_end(void* p) noexcept {
  thread_state* st = own_state;
  if (st == nullptr || !st->ended || p == nullptr) return;
  take_block(*st, reinterpret_cast<std::uintptr_t>(p));
}

void forget_all_threads() noexcept {
  thread_state* st = all_states.exchange(nullptr);
  while (st != nullptr) {
    thread_state* next_state = st->next_state;
    st->blocks.release();
    if (st->buffer != nullptr) munmap(st->buffer, buffer_bytes);
    munmap(st, sizeof(thread_state));
    st = next_state;
  }
  thread_count.store(0);
  unknown_frees.store(0);
  last_rss_us.store(0);
  threads_share.store(!membarrier_ready);
  current = own_state = nullptr;
  const inside_recorder unrecorded;
  pthread_setspecific(thread_key, nullptr);
}

}  // namespace alloclab::record
