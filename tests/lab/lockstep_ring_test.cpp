// The lockstep ring (lockstep/ring.hpp) with members on threads instead of worker processes: each
// member takes its enrolment's ends as a worker would take descriptors 3 and 4 and times its
// slices through a slice_gate. What is checked: one slice at a time, slice k of every member in
// cycle k, members that leave early or never start do not hold the others up, and a member's
// exception comes back to the caller.
#include <atomic>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "lockstep/enrolment.hpp"
#include "lockstep/ring.hpp"
#include "lockstep/slice_gate.hpp"

namespace alloclab::lab::lockstep {
namespace {

// What the members did, in the order the ring let them.
struct ring_log {
  std::mutex mutex;
  std::vector<std::size_t> order;  // member index per slice, in time order
  std::atomic<int> timing{0};
  std::atomic<int> most_at_once{0};
};

// A member that times `slices` slices (a worker in miniature), then leaves the ring.
std::function<void()> member(ring_log& log, std::size_t index, std::size_t slices) {
  return [&log, index, slices] {
    enrolment& e = thread_enrolment();
    slice_gate gate(std::to_string(e.go_read) + "," + std::to_string(e.done_write) + ",-1");
    e = {};  // the gate owns the ends now, as a worker's process would
    for (std::size_t k = 0; k < slices; ++k) {
      gate.begin();
      const int now = ++log.timing;
      int most = log.most_at_once.load();
      while (now > most && !log.most_at_once.compare_exchange_weak(most, now)) {
      }
      {
        std::lock_guard<std::mutex> lock(log.mutex);
        log.order.push_back(index);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      --log.timing;
      gate.end();
    }
    gate.finish();
  };
}

TEST(LockstepRing, OneSliceAtATimeAndSliceKOfEveryMemberInCycleK) {
  ring_log log;
  const std::size_t members = 5, slices = 6;
  std::vector<std::function<void()>> ring;
  for (std::size_t i = 0; i < members; ++i) ring.push_back(member(log, i, slices));
  const ring_account account = run_ring(ring, {-1, 7});
  EXPECT_EQ(log.most_at_once.load(), 1);
  ASSERT_EQ(log.order.size(), members * slices);
  EXPECT_EQ(account.slices, std::vector<std::size_t>(members, slices));
  // Cycle k holds each member once: slice k of every member lies in it.
  for (std::size_t cycle = 0; cycle < slices; ++cycle) {
    std::vector<int> seen(members, 0);
    for (std::size_t i = cycle * members; i < (cycle + 1) * members; ++i) ++seen[log.order[i]];
    EXPECT_EQ(seen, std::vector<int>(members, 1)) << "cycle " << cycle;
  }
}

TEST(LockstepRing, TheOrderWithinACycleIsShuffled) {
  ring_log log;
  const std::size_t members = 6, slices = 8;
  std::vector<std::function<void()>> ring;
  for (std::size_t i = 0; i < members; ++i) ring.push_back(member(log, i, slices));
  run_ring(ring, {-1, 11});
  std::size_t first_differs = 0;
  for (std::size_t cycle = 1; cycle < slices; ++cycle)
    first_differs += log.order[cycle * members] != log.order[0];
  EXPECT_GT(first_differs, 0u);
}

TEST(LockstepRing, MembersThatLeaveEarlyOrNeverStartDoNotHoldTheOthers) {
  ring_log log;
  std::vector<std::function<void()>> ring{member(log, 0, 5), member(log, 1, 2), [] {},
                                          member(log, 3, 5)};
  const ring_account account = run_ring(ring, {-1, 3});
  EXPECT_EQ(account.slices, (std::vector<std::size_t>{5, 2, 0, 5}));
  EXPECT_EQ(log.order.size(), 12u);
  EXPECT_EQ(log.most_at_once.load(), 1);
}

TEST(LockstepRing, AMembersExceptionComesBackAfterTheOthersEnd) {
  ring_log log;
  std::vector<std::function<void()>> ring{
      member(log, 0, 3), [] { throw std::runtime_error("interrupted"); }, member(log, 2, 3)};
  EXPECT_THROW(run_ring(ring, {-1, 5}), std::runtime_error);
  EXPECT_EQ(log.order.size(), 6u);
}

TEST(LockstepRing, AGateOutsideARingDoesNothing) {
  slice_gate gate("");
  EXPECT_FALSE(gate.in_ring());
  gate.begin();
  gate.end();
  gate.finish();
}

}  // namespace
}  // namespace alloclab::lab::lockstep
