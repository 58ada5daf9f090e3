// The thread-local path: each thread's state, made on its first event, and the scope every hooked
// call opens (busy flag, no lock, no fence); thread exit and fork.
#pragma once

#include <atomic>

#include "recorder_state.hpp"

namespace alloclab::record {

/// A new thread's state, registered in all_states; null when memory ran out.
thread_state* new_thread_state() noexcept;
/// pthread key destructor: the thread's last events and its end, written as a chunk.
void on_thread_exit(void* state) noexcept;
/// fork: the child records nothing (its copy of the buffers belongs to the parent's trace).
void on_fork_child() noexcept;

// While an event_scope is open the thread is `busy`; finish_recording() flushes only threads
// that are not (membarrier makes the check sound without a fence on this path).
class event_scope {
 public:
  event_scope() noexcept {
    if (!recording.load(std::memory_order_relaxed) || inside) return;
    if (current == nullptr && (current = new_thread_state()) == nullptr) return;
    current->busy.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (recording.load(std::memory_order_relaxed)) {
      st_ = current;
    } else {
      current->busy.store(0, std::memory_order_release);
    }
  }
  ~event_scope() {
    if (st_ == nullptr) return;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    st_->busy.store(0, std::memory_order_release);
  }
  event_scope(const event_scope&) = delete;
  event_scope& operator=(const event_scope&) = delete;
  thread_state* state() const noexcept { return st_; }

 private:
  thread_state* st_ = nullptr;
};

}  // namespace alloclab::record
