// The heap frame's retention timelines seen from the parent (frames/heap/retention_phase.hpp,
// heap_retention.hpp): which the plan asks for, the memory waves, their summary in results, and
// the per-malloc summary of the heap cells' retention.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frames/heap/heap_retention.hpp"
#include "frames/heap/retention_phase.hpp"
#include "plan/plan.hpp"
#include "frames/heap/run_options.hpp"

namespace alloclab::lab {
namespace {

namespace heap = alloclab::heap;

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
    EXPECT_EQ(s.horizon_s, heap_sizes_of(plan).retention_horizon_s);
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

retention_timeline_run timeline(heap::size_dist dist, bool light, double kept, const char* status) {
  retention_timeline_run t;
  t.spec.spec.malloc_name = "jemalloc";
  t.spec.spec.dist = dist;
  t.spec.spec.light_load = light;
  t.status = status;
  t.reason = "crashed";
  t.retention.emplace();
  t.retention->kept = kept + 0.1;
  t.retention->kept_unreclaimable = kept;
  return t;
}

TEST(RetentionPhase, TheSummaryTakesTheMedianOverWorkloadsAndKeepsFailures) {
  const auto s =
      retention_timelines_summary({timeline(heap::size_dist::uniform, true, 0.2, "ok"),
                                   timeline(heap::size_dist::exponential, true, 0.4, "ok"),
                                   timeline(heap::size_dist::lognormal, true, 0.9, "ok"),
                                   timeline(heap::size_dist::uniform, false, 1, "failed")},
                                  12);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->horizon_s, 12);
  EXPECT_EQ(s->timelines.size(), 4u);
  ASSERT_EQ(s->variants.size(), 2u);
  const retention_variant& light = s->variants[0];
  EXPECT_EQ(light.load, "light");
  EXPECT_EQ(light.workloads.size(), 3u);
  EXPECT_DOUBLE_EQ(light.median_kept_unreclaimable.value(), 0.4);
  EXPECT_DOUBLE_EQ(light.median_kept.value(), 0.5);
  const retention_variant& idle = s->variants[1];
  EXPECT_FALSE(idle.median_kept.has_value());
  ASSERT_EQ(idle.failures.size(), 1u);
  EXPECT_EQ(idle.failures[0].rfind("fifo_uniform: ", 0), 0u);
  EXPECT_FALSE(retention_timelines_summary({}, 12).has_value());
}

cell_retention cell(const char* malloc, std::optional<double> after_free, const char* purge) {
  cell_retention c;
  c.malloc = malloc;
  c.retention.after_free_0ms = after_free;
  c.retention.after_purge = after_free;
  c.purge_call = purge;
  return c;
}

TEST(HeapRetention, OneRowPerMallocInTheOrderTheCellsNameIt) {
  const std::vector<retention_row> rows =
      heap_retention_summary({cell("jemalloc", 0.5, "j1"), cell("glibc", 1.0, "g"),
                              cell("jemalloc", 0.1, "j2"), cell("jemalloc", 0.3, "j3")});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].malloc, "jemalloc");
  EXPECT_EQ(rows[0].workloads, 3u);
  EXPECT_EQ(rows[0].purge_call, "j3");  // the last cell's
  ASSERT_TRUE(rows[0].after_free_0ms.has_value());
  EXPECT_DOUBLE_EQ(rows[0].after_free_0ms->median, 0.3);
  EXPECT_DOUBLE_EQ(rows[0].after_free_0ms->min, 0.1);
  EXPECT_DOUBLE_EQ(rows[0].after_free_0ms->max, 0.5);
  EXPECT_FALSE(rows[0].after_free_1s.has_value());  // no cell has the figure
  EXPECT_EQ(rows[1].malloc, "glibc");
  EXPECT_TRUE(heap_retention_summary({}).empty());
}

TEST(HeapRetention, ACellWithoutFiguresDoesNotRepeatItsMallocsRow) {
  const std::vector<retention_row> rows = heap_retention_summary(
      {cell("glibc", std::nullopt, "g"), cell("glibc", 0.5, "g"), cell("glibc", 0.7, "g")});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].workloads, 2u);
  EXPECT_DOUBLE_EQ(rows[0].after_free_0ms->median, 0.6);
}

}  // namespace
}  // namespace alloclab::lab
