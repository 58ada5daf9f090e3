#include "threads.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "chunk_writer.hpp"
#include "encoder.hpp"

namespace alloclab::record {

namespace {

// The first thread records with an unlocked block table. The second one turns locking on and
// waits until no other thread is inside an event: membarrier() makes every thread either show
// its `busy` flag here or see the table shared in its next event (the fast path needs no fence).
void share_block_table(thread_state* others) noexcept {
  blocks().set_shared();
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  for (thread_state* st = others; st != nullptr; st = st->next_state) {
    while (st->busy.load(std::memory_order_acquire) != 0) sched_yield();
  }
}

}  // namespace

thread_state* new_thread_state() noexcept {
  void* memory = map_memory(sizeof(thread_state));
  if (memory == nullptr) return nullptr;
  auto* st = new (memory) thread_state();
  st->index = thread_count.fetch_add(1, std::memory_order_relaxed);
  st->cursor = st->buffer;
  st->clock_countdown = clock_every_events;
  st->last_us = elapsed_us(CLOCK_MONOTONIC);
  put_op(*st, fmt::op::thread_start);
  put(*st, static_cast<std::uint64_t>(syscall(SYS_gettid)));
  put(*st, st->last_us);
  st->committed = st->cursor;
  inside = true;
  pthread_setspecific(thread_key, st);  // may allocate
  pthread_mutex_lock(&write_lock);
  st->next_state = all_states;
  all_states = st;
  pthread_mutex_unlock(&write_lock);
  inside = false;
  if (st->index > 0 && !blocks().shared()) share_block_table(st->next_state);
  return st;
}

void on_thread_exit(void* state) noexcept {
  auto* st = static_cast<thread_state*>(state);
  inside = true;  // later calls from other TLS destructors pass through
  if (!recording.load(std::memory_order_acquire)) return;
  st->busy.store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (recording.load(std::memory_order_relaxed)) end_thread(*st);
  st->busy.store(0, std::memory_order_release);
}

void on_fork_child() noexcept {
  recording.store(false, std::memory_order_relaxed);
  if (trace_fd >= 0) close(trace_fd);
  trace_fd = -1;
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  std::memcpy(&write_lock, &fresh, sizeof fresh);
}

}  // namespace alloclab::record
