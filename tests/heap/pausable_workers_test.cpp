// process/pausable_workers: a paused worker's process group is stopped (a `sleep` shorter than the
// pause does not end during it) and runs on after resume(); a worker started while paused is
// stopped at once; waiting ends on cancel. What /proc shows for a stopped process is not asserted:
// it varies with where the signal found the process.
#include "process/pausable_workers.hpp"

#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>

#include "process/worker.hpp"

using namespace alloclab::process;

namespace {

// Whether the worker behind `outcome` is still held: a stopped `sleep` cannot end, so after
// longer than it sleeps its outcome is not ready (a worker that was not stopped would be).
bool still_held(std::future<worker_outcome>& outcome, std::chrono::seconds longer_than_its_sleep) {
  return outcome.wait_for(longer_than_its_sleep) == std::future_status::timeout;
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
  group.get_future().get();
  workers.pause();
  EXPECT_TRUE(still_held(outcome, std::chrono::seconds(3)));
  workers.resume();
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
  group.get_future().get();
  EXPECT_TRUE(still_held(outcome, std::chrono::seconds(2)));
  workers.resume();  // the inner pause ends; the outer one holds
  EXPECT_TRUE(still_held(outcome, std::chrono::seconds(1)));
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
