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
//   replay_trace: a producer runs no further ahead of its consumer than the recorded times allow,
//     so the replay's live set follows the recorded one, not its own backlog
//                                                 -> ReplayMemory.AProducerStaysNearItsConsumer
//   replay_trace: pacing cannot deadlock when coarse recorded clocks put a free before the
//     allocation it frees                         -> ReplayMemory.AFreeReadingEarlierThanItsBlockEnds
//   block_slots: 16 bytes an entry; a big block's size kept in the block
//                                                 -> ReplayMemory.TheTableIsSixteenBytesAnEntry,
//                                                    ReplayMemory.BigBlocksKeepTheirSize
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "trace/block_slots.hpp"
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

// Version 2 codes a cross-thread free's id as a delta from the same owner's previous one (two
// owners sharing a slot of the table of bases included); version 1 traces, absolute ids, still
// read; version 3 only adds the image's origin to the file header.
TEST(ReplayMemory, CrossThreadFreeIdsReadInEveryVersion) {
  for (const std::uint32_t version : {1u, 2u, trace_format::current_version}) {
    SCOPED_TRACE("version " + std::to_string(version));
    synthetic_trace w("cross_ids_v" + std::to_string(version), version);
    const std::uint32_t owners[] = {1, 1 + trace_format::cross_free_ids::slots, 2};
    for (const std::uint32_t owner : owners)
      for (int i = 0; i < 300; ++i) w.thread(owner).malloc(16);
    const std::vector<std::pair<std::uint32_t, std::uint64_t>> frees = {
        {1, 5}, {1, 200}, {65, 7}, {1, 6}, {2, 299}, {65, 0}, {1, 0}, {2, 1}};
    for (const auto& [owner, id] : frees) w.thread(0).free_of(owner, id);
    std::vector<std::pair<std::uint32_t, std::uint64_t>> read;
    const trace_file& t = w.finish();
    EXPECT_EQ(t.header().origin.has_value(), version >= trace_format::first_version_with_origin);
    t.for_each_event([&](const event& e) {
      if (e.kind == event_kind::free)
        read.emplace_back(block_thread(e.block), block_index(e.block));
    });
    EXPECT_EQ(read, frees);
  }
}

// Recorded: each millisecond the producer (thread 1) allocates 4 blocks of 4 KiB and the consumer
// (thread 2) frees them, after work of its own (100 allocations and frees), so at most a few
// steps' blocks are ever live. The consumer's replay is far slower than the producer's: before,
// nothing held the producer back and the whole 31 MiB it allocates was live at once.
TEST(ReplayMemory, AProducerStaysNearItsConsumer) {
  synthetic_trace w("producer_consumer");
  w.timed();
  constexpr std::uint64_t steps = 2000, per_step = 4, size = 4096;
  for (std::uint64_t s = 0; s < steps; ++s) {
    w.thread(1).timestamp(1000);
    w.thread(2).timestamp(1000);
    for (std::uint64_t k = 0; k < per_step; ++k) w.thread(1).malloc(size);
    for (int k = 0; k < 100; ++k) {
      w.thread(2).malloc(size);
      w.thread(2).free_youngest();
    }
    for (std::uint64_t k = 0; k < per_step; ++k) w.thread(2).free_of(1, s * per_step + k);
  }
  const replay_result r = replay_trace(w.finish());
  EXPECT_EQ(r.final_live_bytes, 0u);
  EXPECT_EQ(r.skipped, 0u);
  // The recorded peak is 5 blocks; the replay may run a few milliseconds of recorded time apart.
  EXPECT_LE(r.peak_live_bytes, 64 * size)
      << "the producer ran ahead: the replay built a backlog the recording never had";
}

// The freeing thread's clock lags (it wrote no timestamp for 50 ms): its free reads 50 ms
// earlier than the allocation. The allocating thread is then far ahead of it, and waits for it by
// pacing while it waits for the allocation: the waiting thread must not hold its owner back.
TEST(ReplayMemory, AFreeReadingEarlierThanItsBlockEnds) {
  synthetic_trace w("stale_clock");
  w.timed();
  for (std::uint64_t s = 0; s < 50; ++s) {
    w.thread(1).timestamp(1000);
    w.thread(1).malloc(64);
  }
  for (std::uint64_t id = 0; id < 50; ++id) w.thread(2).free_of(1, id);
  w.thread(2).timestamp(60000);
  const replay_result r = replay_trace(w.finish());
  EXPECT_EQ(r.calls, 100u);
  EXPECT_EQ(r.final_live_bytes, 0u);
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

namespace alloclab::trace {
namespace {

// ---- the program-work model ----

TEST(ReplayProgramWork, TouchesLiveBlocksInProportionToTheirLifetime) {
  synthetic_trace w("program_work");
  for (int i = 0; i < 20000; ++i) {
    w.thread(0).malloc(128);
    w.thread(0).free_youngest();
  }
  replay_options options;
  options.program_work = true;
  options.touches_per_call = 2;
  const replay_result r = replay_trace(w.finish(), options);
  // One block is live after each malloc, none after each free: two touches per malloc.
  EXPECT_EQ(r.touches, 2u * 20000);
  EXPECT_EQ(r.touched_bytes, 2u * 20000 * 128);
  EXPECT_GT(r.program_seconds, 0.0);
  EXPECT_EQ(r.call_seconds, 0.0) << "with program work, time is the program's, not the calls'";

  const replay_result calls_only = replay_trace(w.finish());
  EXPECT_EQ(calls_only.touches, 0u);
  EXPECT_EQ(calls_only.program_seconds, 0.0);
}

TEST(ReplayProgramWork, RecordedGapsSetHowMuchWorkFallsBetweenCalls) {
  // A block lives throughout, so every touch finds one. Three windows of 1000 calls took 100,
  // 1900 and 1000 us; with a mean of 1 us per call, each window's rate applies from the next
  // window on (the first runs at the base rate): 1001 x 1 + 1000 x 0.1 + 1000 x 1.9 touches.
  synthetic_trace w("gaps");
  w.thread(0).malloc(64);
  const auto window = [&](std::uint64_t us) {
    for (int i = 0; i < 500; ++i) {
      w.thread(0).malloc(64);
      w.thread(0).free_youngest();
    }
    w.thread(0).timestamp(us);
  };
  window(100);
  window(1900);
  window(1000);
  replay_options options;
  options.program_work = true;
  options.touches_per_call = 1;
  options.mean_us_per_call = 1.0;
  const replay_result r = replay_trace(w.finish(), options);
  EXPECT_NEAR(static_cast<double>(r.touches), 1001 + 100 + 1900, 3.0);
}

TEST(ReplayMemory, TheTableIsSixteenBytesAnEntry) {
  block_slots table(false);
  std::vector<char> blocks(1000);
  for (std::uint64_t id = 0; id < 1000; ++id) table.insert(id, {&blocks[id], 1, 0});
  EXPECT_EQ(table.peak_count(), 1000u);
  EXPECT_LE(table.peak_bytes(), 2048u * 16);  // at most 3/4 full, a power of two
  block_slot slot;
  for (std::uint64_t id = 0; id < 1000; ++id) {
    ASSERT_TRUE(table.remove(id, slot));
    EXPECT_EQ(slot.pointer, &blocks[id]);
    EXPECT_EQ(slot.size, 1u);
  }
}

TEST(ReplayMemory, BigBlocksKeepTheirSize) {
  block_slots table(false);
  std::vector<char> big((std::size_t{1} << 20) + 3), small(100);
  table.insert(0, {big.data(), big.size(), 0});
  table.insert(1, {small.data(), small.size(), 64});
  table.insert(2, {nullptr, big.size(), 0});  // a skipped call: no pointer to keep it in
  block_slot slot;
  ASSERT_TRUE(table.find(0, slot));
  EXPECT_EQ(slot.size, big.size());
  ASSERT_TRUE(table.remove(1, slot));
  EXPECT_EQ(slot.size, 100u);
  EXPECT_EQ(slot.alignment, 64u);
  ASSERT_TRUE(table.remove(0, slot));
  EXPECT_EQ(slot.pointer, big.data());
  EXPECT_EQ(slot.size, big.size());
  ASSERT_TRUE(table.remove(2, slot));
  EXPECT_EQ(slot.pointer, nullptr);
}

}  // namespace
}  // namespace alloclab::trace
