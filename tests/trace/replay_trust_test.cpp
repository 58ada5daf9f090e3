// Tests of the replay's trust (trace/replay_trust.hpp) and the one peak live bytes it rests on
// (trace/live_interleavings.hpp), on synthetic traces and on the recorded producer/consumer
// fixture (tests/trace/producer_consumer.cpp) through `alloclab trace info`.
//
// Test plan (behaviour -> test):
//   one thread: every interleaving has the file order's peak -> LiveInterleavings.OneThread...
//   two threads in one window: the orders bound the peak     -> LiveInterleavings.TwoThreads...
//   a free that precedes its allocation in file order        -> LiveInterleavings.AFreeBefore...
//   single-threaded trace: predictive, no reasons            -> ReplayTrust.OneThreadIsPredictive
//   producer/consumer trace: not predictive, each reason     -> ReplayTrust.HandOffsAreNot...
//   threads freeing their own blocks only: predictive        -> ReplayTrust.IndependentThreads...
//   untimed trace: the spread is unknown, not zero           -> ReplayTrust.UntimedTraces...
//   the replay's error band                                  -> ReplayTrust.RatiosWithinTheError...
//   trace info on a recorded producer/consumer program       -> TraceInfoTrust.TraceInfoTells...
//   a replay's cost: whole, whole phases, inside the first    -> ReplayCut.*
#include <string>

#include <gtest/gtest.h>

#include "lab/cli_support.hpp"
#include "trace/live_interleavings.hpp"
#include "trace/replay.hpp"
#include "trace/replay_cut.hpp"
#include "trace/replay_trust.hpp"
#include "trace/synthetic_trace.hpp"
#include "trace/trace_info.hpp"

namespace alloclab::trace {
namespace {

using lab::cli_support::outcome;

TEST(LiveInterleavings, OneThreadHasOnePeakInEveryOrder) {
  live_interleavings peaks(1000);
  peaks.change(0, 10, 100);
  peaks.change(0, 1500, 50);
  peaks.change(0, 1600, -100);
  peaks.change(0, 3000, 200);
  const interleaving_peaks p = peaks.finish();
  EXPECT_EQ(p.file_order, 250u);
  EXPECT_EQ(p.time_ascending, 250u);
  EXPECT_EQ(p.time_descending, 250u);
  EXPECT_EQ(p.spread(), 0.0);
}

TEST(LiveInterleavings, TwoThreadsInOneWindowBoundThePeak) {
  live_interleavings peaks(1000);
  peaks.change(0, 10, 64);   // thread 0 allocates
  peaks.change(1, 20, -64);  // thread 1 frees it in the same window
  const interleaving_peaks p = peaks.finish();
  EXPECT_EQ(p.file_order, 64u);
  EXPECT_EQ(p.time_ascending, 64u);
  EXPECT_EQ(p.time_descending, 0u);  // the free first: nothing was ever live at once
  EXPECT_EQ(p.lowest(), 0u);
  EXPECT_EQ(p.highest(), 64u);
  EXPECT_EQ(p.spread(), 1.0);
}

TEST(LiveInterleavings, AFreeBeforeItsAllocationIsAmendedIntoItsWindow) {
  live_interleavings peaks(1000);
  const std::size_t where = peaks.change(1, 5, 0);  // the free, its size not known yet
  peaks.change(0, 2500, 64);                        // the allocation, two windows later
  peaks.amend(1, where, -64);
  const interleaving_peaks p = peaks.finish();
  EXPECT_EQ(p.file_order, 64u);
  EXPECT_EQ(p.time_ascending, 0u);  // in time order the free's -64 comes first
}

TEST(LiveInterleavings, UntimedMeasuresFileOrderOnly) {
  live_interleavings peaks(0);
  peaks.change(0, 0, 10);
  peaks.change(1, 0, 20);
  const interleaving_peaks p = peaks.finish();
  EXPECT_FALSE(p.timed);
  EXPECT_EQ(p.time_order(), 30u);
  EXPECT_EQ(p.spread(), 0.0);
}

TEST(ReplayTrust, OneThreadIsPredictive) {
  synthetic_trace w("trust_one_thread");
  w.timed();
  for (int i = 0; i < 100; ++i) {
    w.thread(0).malloc(64);
    if (i % 10 == 0) w.thread(0).timestamp(1000);
    w.thread(0).free_youngest();
  }
  const trace_summary s = summarize(w.finish());
  const replay_trust t = assess_replay(s);
  EXPECT_TRUE(t.predictive);
  EXPECT_TRUE(t.reasons.empty());
  EXPECT_TRUE(t.timed);
  EXPECT_EQ(t.peak_live_spread, 0.0);
  EXPECT_EQ(t.peak_live_bytes, 64u);
  EXPECT_EQ(s.peak_live_bytes, 64u);
}

// Thread 0 allocates 1000 blocks, 100 per millisecond; thread 1 frees every one of them, ten
// milliseconds behind: file order (a chunk per thread) and time order disagree on the backlog.
TEST(ReplayTrust, HandOffsAreNotPredictive) {
  synthetic_trace w("trust_handoff");
  w.timed();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    if (i % 100 == 0) w.thread(0).timestamp(1000);
    w.thread(0).malloc(100);
  }
  w.thread(1).timestamp(5000);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    if (i % 100 == 0) w.thread(1).timestamp(1000);
    w.thread(1).free_of(0, i);
  }
  const trace_summary s = summarize(w.finish());
  const replay_trust t = assess_replay(s);
  EXPECT_FALSE(t.predictive);
  EXPECT_EQ(t.cross_thread_free_share, 1.0);
  EXPECT_EQ(t.producer_consumer_pairs, 1u);
  ASSERT_EQ(t.reasons.size(), 3u);
  EXPECT_NE(t.reasons[0].find("cross-thread"), std::string::npos) << t.reasons[0];
  EXPECT_NE(t.reasons[1].find("producer/consumer"), std::string::npos) << t.reasons[1];
  EXPECT_NE(t.reasons[2].find("interleave"), std::string::npos) << t.reasons[2];
  EXPECT_EQ(s.interleavings.file_order, 100000u);  // thread 0's chunk comes first whole
  EXPECT_LT(s.peak_live_bytes, s.interleavings.file_order);
  EXPECT_EQ(s.peak_live_bytes, s.interleavings.time_ascending);
  ASSERT_EQ(s.handoffs.size(), 1u);
  EXPECT_EQ(s.handoffs[0].from, 0u);
  EXPECT_EQ(s.handoffs[0].to, 1u);
  EXPECT_EQ(s.handoffs[0].blocks, 1000u);
}

TEST(ReplayTrust, IndependentThreadsArePredictive) {
  synthetic_trace w("trust_independent");
  w.timed();
  for (std::uint32_t thread = 0; thread < 3; ++thread)
    for (int i = 0; i < 200; ++i) {
      if (i % 20 == 0) w.thread(thread).timestamp(1000);
      w.thread(thread).malloc(32);
      w.thread(thread).free_youngest();
    }
  const replay_trust t = assess_replay(summarize(w.finish()));
  EXPECT_TRUE(t.predictive) << (t.reasons.empty() ? "" : t.reasons.front());
  EXPECT_EQ(t.cross_thread_frees, 0u);
}

TEST(ReplayTrust, UntimedTracesHaveNoSpreadButCrossFreesStillCount) {
  synthetic_trace w("trust_untimed");
  for (std::uint64_t i = 0; i < 10; ++i) w.thread(0).malloc(10);
  for (std::uint64_t i = 0; i < 10; ++i) w.thread(1).free_of(0, i);
  const replay_trust t = assess_replay(summarize(w.finish()));
  EXPECT_FALSE(t.timed);
  EXPECT_FALSE(t.predictive);
  for (const std::string& r : t.reasons)
    EXPECT_EQ(r.find("interleave"), std::string::npos) << r;  // not judged without timestamps
  EXPECT_NE(render_replay_trust(t).find("unknown (no timed events to interleave by)"),
            std::string::npos);
}

TEST(ReplayTrust, RatiosWithinTheReplaysErrorAreNotGains) {
  const double bound = 1 + replay_error_percent / 100;
  EXPECT_TRUE(within_replay_error(1.0));
  EXPECT_TRUE(within_replay_error(bound));
  EXPECT_TRUE(within_replay_error(1 / bound));
  EXPECT_FALSE(within_replay_error(bound * 1.01));
  EXPECT_FALSE(within_replay_error(1 / (bound * 1.01)));
}

trace_summary three_phases() {
  trace_summary s;
  s.threads.push_back({});
  s.threads.back().events = 1000;
  s.duration_us = 30000;
  s.phases = {{0, 10000, "growing", 150, 0, 300},
              {10000, 20000, "steady", 150, 0, 300},
              {20000, 30000, "releasing", 0, 0, 400}};
  return s;
}

TEST(ReplayCut, ATraceWithinTheBudgetIsReplayedWhole) {
  const replay_cut cut = cut_for_budget(three_phases(), 1000);
  EXPECT_EQ(cut.end_us, 0u);
  EXPECT_EQ(cut.calls, 1000u);
  EXPECT_EQ(cut.description, "the whole trace");
}

TEST(ReplayCut, ALongerTraceEndsAfterTheLastWholePhaseThatFits) {
  const replay_cut cut = cut_for_budget(three_phases(), 700);
  EXPECT_EQ(cut.end_us, 20000u);
  EXPECT_EQ(cut.calls, 600u);
  EXPECT_NE(cut.description.find("the first 2 of 3 phases"), std::string::npos) << cut.description;
}

TEST(ReplayCut, NoWholePhaseFitsCutsInsideTheFirst) {
  const replay_cut cut = cut_for_budget(three_phases(), 150);
  EXPECT_EQ(cut.end_us, 5000u);
  EXPECT_NE(cut.description.find("inside the first of 3 phases"), std::string::npos)
      << cut.description;
}

TEST(ReplayCut, AnUntimedTraceIsReplayedWholeAndSaysSo) {
  trace_summary s = three_phases();
  s.phases.clear();
  const replay_cut cut = cut_for_budget(s, 10);
  EXPECT_EQ(cut.end_us, 0u);
  EXPECT_NE(cut.description.find("cannot be cut"), std::string::npos) << cut.description;
}

TEST(ReplayCut, TheReplayStopsAtTheCut) {
  synthetic_trace w("cut");
  w.timed();
  w.thread(0).timestamp(1000);
  for (int i = 0; i < 10; ++i) w.thread(0).malloc(16);
  w.thread(0).timestamp(2000);
  for (int i = 0; i < 10; ++i) w.thread(0).malloc(16);
  replay_options options;
  options.end_us = 2000;
  const replay_result r = replay_trace(w.finish(), options);
  EXPECT_EQ(r.calls, 10u);
  EXPECT_EQ(r.released_at_end, 10u);
}

class TraceInfoTrust : public lab::cli_support::binary_test {};

TEST_F(TraceInfoTrust, TraceInfoTellsAProducerConsumerProgramIsNotPredictive) {
  const std::string trace = (dir_ / "pc.trace").string();
  const outcome recorded =
      run("record -o '" + trace + "' -- '" + TRACE_PRODUCER_CONSUMER + "' 20000");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const outcome info = run("trace info '" + trace + "'");
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find(std::string("verdict: ") + not_predictive_text), std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("producer/consumer"), std::string::npos) << info.out;

  const std::string single = (dir_ / "loop.trace").string();
  ASSERT_EQ(run("record -o '" + single + "' -- '" + TRACE_MALLOC_LOOP + "' 20000").exit_code, 0);
  const outcome loop = run("trace info '" + single + "'");
  ASSERT_EQ(loop.exit_code, 0) << loop.err;
  EXPECT_NE(loop.out.find("verdict: predictive"), std::string::npos) << loop.out;
}

}  // namespace
}  // namespace alloclab::trace
