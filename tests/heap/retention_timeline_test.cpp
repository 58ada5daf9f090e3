// Retention timelines (frames/heap/retention_timeline.hpp): the spec, the sample times, the kept
// share, LazyFree, and one short timeline measured in this process under glibc.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "frames/heap/retention_timeline.hpp"

namespace alloclab::heap {
namespace {

using json = nlohmann::json;

TEST(RetentionTimeline, SampleTimesEndAtTheHorizon) {
  EXPECT_EQ(retention_sample_times(12),
            (std::vector<double>{0, 0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 12}));
  EXPECT_EQ(retention_sample_times(0.3), (std::vector<double>{0, 0.1, 0.25, 0.3}));
}

TEST(RetentionTimeline, KeptShareLeavesOutLazyFreePagesAndClamps) {
  EXPECT_DOUBLE_EQ(kept_share(150, 0, 100, 200).value(), 0.5);
  EXPECT_DOUBLE_EQ(kept_share(150, 40, 100, 200).value(), 0.1);
  EXPECT_DOUBLE_EQ(kept_share(90, 0, 100, 200).value(), 0.0);
  EXPECT_FALSE(kept_share(100, 0, 100, 100).has_value());  // no growth: nothing to keep
}

TEST(RetentionTimeline, ReadsLazyFreeFromSmapsRollup) {
  EXPECT_DOUBLE_EQ(parse_lazy_free("Rss:  2048 kB\nLazyFree:  512 kB\nAnonymous: 3 kB\n"),
                   512.0 * 1024);
  EXPECT_DOUBLE_EQ(parse_lazy_free("Rss: 5 kB\n"), 0);  // an older kernel
}

TEST(RetentionTimeline, SpecsRoundTripAndBadOnesAreRefused) {
  retention_spec s;
  s.malloc_name = "jemalloc";
  s.dist = size_dist::exponential;
  s.light_load = true;
  s.background_thread = true;
  const retention_spec back = retention_spec_from_json(to_json(s));
  EXPECT_EQ(back.malloc_name, "jemalloc");
  EXPECT_EQ(back.dist, size_dist::exponential);
  EXPECT_TRUE(back.light_load && back.background_thread);
  json bad = to_json(s);
  bad["horizon_s"] = 0;
  EXPECT_THROW(retention_spec_from_json(bad), std::invalid_argument);
  bad = to_json(s);
  bad["dist"] = "zipf";
  EXPECT_THROW(retention_spec_from_json(bad), std::invalid_argument);
}

// A short timeline under light load, in this process (glibc): readings at each sample time.
TEST(RetentionTimeline, MeasuresRssAfterTheLastFreeOverTheHorizon) {
  retention_spec s;
  s.dist = size_dist::exponential;
  s.light_load = true;
  s.horizon_s = 0.3;
  s.iterations = 3;
  const retention_timeline_figures r = measure_retention(s);
  ASSERT_EQ(r.timeline.size(), 4u);
  EXPECT_EQ(r.timeline.back().t_s, 0.3);
  EXPECT_GT(r.peak_rss_bytes, r.baseline_rss_bytes);
  for (const retention_reading& point : r.timeline) {
    EXPECT_GT(point.rss_bytes, 0);
    if (point.kept) {
      EXPECT_GE(*point.kept, 0);
      EXPECT_LE(*point.kept, 1);
    }
  }
  EXPECT_EQ(r.kept, r.timeline.back().kept);
  EXPECT_FALSE(r.background_thread.has_value());  // read back for jemalloc only
}

}  // namespace
}  // namespace alloclab::heap
