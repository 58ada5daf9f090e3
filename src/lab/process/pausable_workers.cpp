#include "process/pausable_workers.hpp"

#include <signal.h>

namespace alloclab::process {

void pausable_workers::pause() noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (depth_++ > 0) return;
  ++pauses_;
  paused_at_ = clock::now();
  if (group_ > 0) ::kill(-group_, SIGSTOP);
}

void pausable_workers::resume() noexcept {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (depth_ == 0 || --depth_ > 0) return;
    paused_for_ += clock::now() - paused_at_;
    if (group_ > 0) ::kill(-group_, SIGCONT);
  }
  resumed_.notify_all();
}

void pausable_workers::track(pid_t group) noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  group_ = group;
  if (group_ > 0 && depth_ > 0) ::kill(-group_, SIGSTOP);
}

bool pausable_workers::wait_while_paused(const std::atomic<bool>& cancel) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (depth_ > 0 && !cancel.load())  // cancel has no notify of its own: look again each 50 ms
    resumed_.wait_for(lock, std::chrono::milliseconds(50));
  return !cancel.load();
}

std::size_t pausable_workers::pauses() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return pauses_;
}

double pausable_workers::paused_seconds() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  clock::duration total = paused_for_;
  if (depth_ > 0) total += clock::now() - paused_at_;
  return std::chrono::duration<double>(total).count();
}

}  // namespace alloclab::process
