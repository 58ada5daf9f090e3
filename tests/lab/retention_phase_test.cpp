// The heap frame's retention timelines seen from the parent (frames/heap/retention_phase.hpp,
// heap_retention.hpp): which the plan asks for, the memory waves, and their summary in results.
#include <string>

#include <gtest/gtest.h>

#include "frames/heap/heap_retention.hpp"
#include "frames/heap/retention_phase.hpp"
#include "plan/plan.hpp"

namespace alloclab::lab {
namespace {

namespace heap = alloclab::heap;
using json = nlohmann::json;

TEST(RetentionPhase, TheDefaultPlanWatchesEachFifoDistributionUnderTheClaimsMallocs) {
  const run_plan plan = make_plan(run_request{}, false);
  const auto specs = planned_timelines(plan);
  std::size_t glibc = 0, background = 0, light = 0, installed = 0;
  for (const char* m : {"glibc", "jemalloc", "mimalloc"})
    for (const auto& c : plan.mallocs)
      if (c.label == m && c.missing.empty()) installed += std::string(m) == "jemalloc" ? 2 : 1;
  for (const auto& s : specs) {
    glibc += s.malloc_name == "glibc";
    background += s.background_thread;
    light += s.light_load;
    EXPECT_EQ(s.horizon_s, plan.sizes.retention_horizon_s);
  }
  EXPECT_EQ(specs.size(), 3 * 2 * installed);  // 3 distributions x idle/light x variants
  EXPECT_EQ(glibc, 6u);
  bool jemalloc = false;
  for (const auto& c : plan.mallocs)
    jemalloc = jemalloc || (c.label == "jemalloc" && c.missing.empty());
  EXPECT_EQ(background, jemalloc ? 6u : 0u);  // jemalloc's, 3 distributions x idle and light
  EXPECT_EQ(light * 2, specs.size());
  run_request none;
  none.workloads = {"fifo_uniform"};
  EXPECT_TRUE(planned_timelines(make_plan(none, false)).empty());  // no --retention-horizon
}

TEST(RetentionPhase, WavesKeepTheGrowthWithinTheMemoryGiven) {
  std::vector<heap::retention_spec> specs(4);
  specs[0].dist = specs[1].dist = heap::size_dist::uniform;  // ~262 MB each
  specs[2].dist = specs[3].dist = heap::size_dist::lognormal;
  const auto waves = retention_waves(specs, 300e6);
  ASSERT_EQ(waves.size(), 2u);
  EXPECT_EQ(waves[0], (std::vector<std::size_t>{0}));
  EXPECT_EQ(waves[1], (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(retention_waves(specs, 1e3).size(), 4u);  // too little memory: one at a time
  EXPECT_EQ(retention_waves(specs, 1e12).size(), 1u);
}

TEST(RetentionPhase, TheSummaryTakesTheMedianOverWorkloadsAndKeepsFailures) {
  const auto timeline = [](const char* dist, bool light, double kept, const char* status) {
    return json{{"spec",
                 {{"malloc", "jemalloc"},
                  {"dist", dist},
                  {"light_load", light},
                  {"background_thread", false}}},
                {"status", status},
                {"reason", "crashed"},
                {"retention", {{"kept", kept + 0.1}, {"kept_unreclaimable", kept}}}};
  };
  const json s = retention_timelines_summary(
      json::array({timeline("uniform", true, 0.2, "ok"), timeline("exponential", true, 0.4, "ok"),
                   timeline("lognormal", true, 0.9, "ok"),
                   timeline("uniform", false, 1, "failed")}),
      12);
  ASSERT_EQ(s["variants"].size(), 2u);
  const json& light = s["variants"][0];
  EXPECT_EQ(light["load"], "light");
  EXPECT_DOUBLE_EQ(light["median_kept_unreclaimable"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(light["median_kept"].get<double>(), 0.5);
  const json& idle = s["variants"][1];
  EXPECT_TRUE(idle["median_kept"].is_null());
  ASSERT_EQ(idle["failures"].size(), 1u);
  EXPECT_TRUE(retention_timelines_summary(json::array(), 12).is_null());
}

}  // namespace
}  // namespace alloclab::lab
