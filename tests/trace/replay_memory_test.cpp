// The replay engine's own memory: its block bookkeeping follows the live set, not the trace's
// length, on synthetic traces written event by event (tests/trace/synthetic_trace.hpp).
//
// Test plan (public member -> test):
//   replay_trace: bookkeeping of a trace of many short-lived blocks stays bounded
//                                                 -> ReplayMemory.ShortLivedBlocksKeepBookkeepingBounded
//   replay_trace: long-lived blocks among short ones are freed at the end, counts hold
//                                                 -> ReplayMemory.LongLivedBlocksSurviveSlotReuse
//   replay_trace: cross-thread frees find the other thread's blocks
//                                                 -> ReplayMemory.CrossThreadFreesFindTheirBlocks
//   replay_trace: a double free is still refused  -> ReplayMemory.DoubleFreeIsRefused
#include <gtest/gtest.h>

#include "trace/replay.hpp"
#include "trace/synthetic_trace.hpp"

namespace alloclab::trace {
namespace {

TEST(ReplayMemory, ShortLivedBlocksKeepBookkeepingBounded) {
  synthetic_trace w("short_lived");
  constexpr int pairs = 300000;
  for (int i = 0; i < pairs; ++i) {
    w.thread(0).malloc(48);
    w.thread(0).free_youngest();
  }
  const replay_result r = replay_trace(w.finish());
  EXPECT_EQ(r.calls, 2u * pairs);
  EXPECT_EQ(r.peak_live_bytes, 48u);
  // Before: 24 bytes per block id ever created (7.2 MB here).
  EXPECT_LE(r.bookkeeping_bytes, 64u * 1024) << "bookkeeping grows with the trace's length";
  EXPECT_LE(r.peak_slots, 64u);
}

TEST(ReplayMemory, LongLivedBlocksSurviveSlotReuse) {
  synthetic_trace w("long_lived");
  constexpr int rounds = 2000;
  std::uint64_t kept = 0;
  for (int i = 0; i < rounds; ++i) {
    for (int k = 0; k < 50; ++k) w.thread(0).malloc(16);
    for (int k = 0; k < 49; ++k) w.thread(0).free_age(static_cast<std::uint64_t>(k) + 1);
    ++kept;  // the first of each round (age 49 before the frees) stays
  }
  const replay_result r = replay_trace(w.finish());
  EXPECT_EQ(r.released_at_end, kept);
  EXPECT_EQ(r.final_live_bytes, 16u * kept);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_LE(r.peak_slots, 4 * kept + 256);
}

TEST(ReplayMemory, CrossThreadFreesFindTheirBlocks) {
  synthetic_trace w("cross_thread");
  constexpr std::uint64_t blocks = 5000;
  for (std::uint64_t i = 0; i < blocks; ++i) w.thread(1).malloc(64 + i % 8);
  for (std::uint64_t i = 0; i < blocks; ++i) w.thread(0).free_of(1, i);
  const replay_result r = replay_trace(w.finish());
  EXPECT_EQ(r.calls, 2 * blocks);
  EXPECT_EQ(r.skipped, 0u);
  EXPECT_EQ(r.final_live_bytes, 0u);
  EXPECT_EQ(r.released_at_end, 0u);
}

TEST(ReplayMemory, DoubleFreeIsRefused) {
  synthetic_trace w("double_free");
  w.thread(1).malloc(32);
  w.thread(0).free_of(1, 0);
  w.thread(0).free_of(1, 0);
  EXPECT_THROW(replay_trace(w.finish()), trace_error);
}

}  // namespace
}  // namespace alloclab::trace
