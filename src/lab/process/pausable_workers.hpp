// Background workers that the timing can stop for a while. The simulation queue runs its Valgrind
// workers on the second CPU beside the timing; a task that needs every CPU (a multi-threaded
// workload, a server with its load generator) pauses them while it measures: pause() sends
// SIGSTOP to the process group of the worker running now and holds back the next one until
// resume() sends SIGCONT. A stopped worker uses no CPU; what it simulates does not change.
//
// Usage (the background thread, then the timing's):
//   pausable_workers workers;
//   request.on_group = workers.tracker();          // worker_request: told the worker's group
//   if (workers.wait_while_paused(cancel)) run_worker(request);
//   { const pause_guard quiet(&workers); measure(); }
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

namespace alloclab::process {

class pausable_workers {
 public:
  // Stops the running worker's group (and any started before resume()). Nests: the workers run
  // again when every pause() has had its resume().
  void pause() noexcept;
  void resume() noexcept;
  // Records the running worker's process group (0: none runs); one started while paused is
  // stopped at once.
  void track(pid_t group) noexcept;
  // For worker_request::on_group.
  std::function<void(pid_t)> tracker() {
    return [this](pid_t group) { track(group); };
  }
  // Blocks while paused; false when `cancel` turned true meanwhile.
  bool wait_while_paused(const std::atomic<bool>& cancel);

  std::size_t pauses() const;     // pause()s that stopped the workers (the outer ones)
  double paused_seconds() const;  // wall time the workers spent paused

 private:
  using clock = std::chrono::steady_clock;
  mutable std::mutex mutex_;
  std::condition_variable resumed_;
  std::size_t depth_ = 0;
  pid_t group_ = 0;
  std::size_t pauses_ = 0;
  clock::time_point paused_at_{};
  clock::duration paused_for_{};
};

// Pauses `workers` (none when null) for its lifetime.
class pause_guard {
 public:
  explicit pause_guard(pausable_workers* workers) noexcept : workers_(workers) {
    if (workers_ != nullptr) workers_->pause();
  }
  ~pause_guard() {
    if (workers_ != nullptr) workers_->resume();
  }
  pause_guard(const pause_guard&) = delete;
  pause_guard& operator=(const pause_guard&) = delete;

 private:
  pausable_workers* workers_;
};

}  // namespace alloclab::process
