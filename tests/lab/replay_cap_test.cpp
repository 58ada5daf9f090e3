// Tests of frames/replay/replay_cap: the replay's cost cap sized by the rate a probe measures on
// a prefix of the trace, not by a fixed estimate. The probe is a fake with a known rate: no test
// times anything.
//
// Test plan:
//   a slower machine than the estimate cuts the trace shorter, and the whole replay (the probe
//   included) fits the budget at the measured rate -> ReplayCap.TheMeasuredRateSizesTheCut
//   the probe replays a prefix sized by a share of the budget -> ReplayCap.TheProbeReplaysAPrefix
//   a probe that replays nothing leaves the estimate, and says so -> ReplayCap.NoReadingKeepsTheEstimate
//   a trace without timestamps cannot be cut: it is not probed -> ReplayCap.AnUntimedTraceIsNotProbed
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frames/replay/replay_cap.hpp"

namespace alloclab::lab {
namespace {

using trace::trace_summary;

// Ten phases of a million calls each, 1 s apiece of recorded time.
trace_summary ten_phases() {
  trace_summary s;
  s.threads.push_back({});
  s.threads.back().events = 10'000'000;
  s.duration_us = 10'000'000;
  for (std::uint64_t i = 0; i < 10; ++i)
    s.phases.push_back({i * 1'000'000, (i + 1) * 1'000'000, "steady", 0, 0, 1'000'000});
  return s;
}

// A probe at `ns_per_call`, remembering where it was asked to stop.
struct fake_probe {
  double ns_per_call;
  std::vector<std::uint64_t>* asked;
  probe_reading operator()(std::uint64_t end_us) const {
    asked->push_back(end_us);
    // A prefix ending at end_us holds end_us calls here (a call a recorded microsecond), twice:
    // timed and with program work.
    const std::uint64_t calls = 2 * (end_us == 0 ? 10'000'000 : end_us);
    return {static_cast<double>(calls) * ns_per_call * 1e-9, calls};
  }
};

TEST(ReplayCap, TheMeasuredRateSizesTheCut) {
  std::vector<std::uint64_t> asked;
  const double budget = 300;
  const std::size_t whole_replays = 100;
  const replay_cap cap = cap_replay(ten_phases(), whole_replays, budget, fake_probe{1000, &asked});
  EXPECT_TRUE(cap.measured);
  EXPECT_DOUBLE_EQ(cap.ns_per_call, 1000);
  // At 250 ns the whole trace would have fit (12 M calls); at the measured 1000 ns, after the
  // probe's 12 s, 2.88 M calls do: the first two whole phases.
  EXPECT_EQ(cap.cut.end_us, 2'000'000u);
  EXPECT_EQ(cap.cut.calls, 2'000'000u);
  const double seconds = cap.probe_seconds + static_cast<double>(cap.cut.calls) *
                                                 static_cast<double>(whole_replays) *
                                                 cap.ns_per_call * 1e-9;
  EXPECT_LE(seconds, budget);
  EXPECT_NE(cap.description.find("the first 2 of 10 phases"), std::string::npos) << cap.description;
  EXPECT_NE(cap.description.find("sized at 1000 ns a replayed call, timed on 12.00 M calls"),
            std::string::npos)
      << cap.description;
  // A faster machine than the estimate replays more of the trace: here all of it.
  asked.clear();
  const replay_cap fast = cap_replay(ten_phases(), 10, budget, fake_probe{100, &asked});
  EXPECT_EQ(fast.cut.end_us, 0u);
  EXPECT_EQ(fast.cut.description, "the whole trace");
}

TEST(ReplayCap, TheProbeReplaysAPrefix) {
  std::vector<std::uint64_t> asked;
  cap_replay(ten_phases(), 100, 300, fake_probe{250, &asked});
  ASSERT_EQ(asked.size(), 1u);
  // 1 % of 300 s at 250 ns a call, two replays: 6 M calls, the first six phases.
  EXPECT_EQ(asked[0], 6'000'000u);
}

TEST(ReplayCap, NoReadingKeepsTheEstimate) {
  const replay_cap cap =
      cap_replay(ten_phases(), 100, 300, [](std::uint64_t) { return probe_reading{}; });
  EXPECT_FALSE(cap.measured);
  EXPECT_DOUBLE_EQ(cap.ns_per_call, estimated_ns_per_call);
  EXPECT_NE(cap.description.find("the estimate"), std::string::npos) << cap.description;
}

TEST(ReplayCap, AnUntimedTraceIsNotProbed) {
  trace_summary s = ten_phases();
  s.phases.clear();
  std::vector<std::uint64_t> asked;
  const replay_cap cap = cap_replay(s, 100, 300, fake_probe{1000, &asked});
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(cap.cut.end_us, 0u);
  EXPECT_NE(cap.description.find("not timed"), std::string::npos) << cap.description;
}

}  // namespace
}  // namespace alloclab::lab
