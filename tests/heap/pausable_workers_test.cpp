// process/pausable_workers: a paused worker's process group is stopped (state T in /proc) and runs
// on after resume(); a worker started while paused is stopped at once; waiting ends on cancel.
#include "process/pausable_workers.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "process/worker.hpp"

using namespace alloclab::heap;

namespace {

// The state letter of /proc/PID/stat (R, S, T...), or '?' once the process is gone.
char state_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

// Waits (up to 10 s: signals are delivered asynchronously) until `pid`'s state is or is not T.
bool becomes_stopped(pid_t pid, bool stopped) {
  for (int i = 0; i < 1000; ++i) {
    if ((state_of(pid) == 'T') == stopped) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Runs a shell that sleeps `seconds` as a worker tracked by `workers`; `group` gets its pid.
std::future<worker_outcome> start_sleeper(pausable_workers& workers, std::promise<pid_t>& group,
                                          const char* seconds) {
  return std::async(std::launch::async, [&workers, &group, seconds] {
    worker_request req;
    req.argv = {"/bin/sh", "-c", std::string("sleep ") + seconds};
    bool told = false;
    req.on_group = [&](pid_t pid) {
      workers.track(pid);
      if (pid > 0 && !told) group.set_value(pid);
      told = true;
    };
    return run_worker(req);
  });
}

}  // namespace

TEST(PausableWorkers, PauseStopsTheRunningWorkerAndResumeLetsItFinish) {
  pausable_workers workers;
  std::promise<pid_t> group;
  auto outcome = start_sleeper(workers, group, "1");
  const pid_t pid = group.get_future().get();
  workers.pause();
  EXPECT_TRUE(becomes_stopped(pid, true)) << "state " << state_of(pid);
  workers.resume();
  EXPECT_TRUE(becomes_stopped(pid, false)) << "state " << state_of(pid);
  const worker_outcome o = outcome.get();
  EXPECT_TRUE(o.succeeded()) << o.describe();
  EXPECT_EQ(workers.pauses(), 1u);
  EXPECT_GT(workers.paused_seconds(), 0.0);
}

TEST(PausableWorkers, AWorkerStartedWhilePausedIsStoppedAtOnceAndPausesNest) {
  pausable_workers workers;
  workers.pause();
  workers.pause();
  std::promise<pid_t> group;
  auto outcome = start_sleeper(workers, group, "0.2");
  const pid_t pid = group.get_future().get();
  EXPECT_TRUE(becomes_stopped(pid, true)) << "state " << state_of(pid);
  workers.resume();  // the inner pause ends; the outer one holds
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(state_of(pid), 'T');
  workers.resume();
  EXPECT_TRUE(outcome.get().succeeded());
  EXPECT_EQ(workers.pauses(), 1u);
}

TEST(PausableWorkers, WaitingWhilePausedEndsWhenCancelled) {
  pausable_workers workers;
  std::atomic<bool> cancel{false};
  EXPECT_TRUE(workers.wait_while_paused(cancel));  // not paused: no wait
  workers.pause();
  auto waiting = std::async(std::launch::async, [&] { return workers.wait_while_paused(cancel); });
  cancel = true;
  EXPECT_FALSE(waiting.get());
  workers.resume();
}
