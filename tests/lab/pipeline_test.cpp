// Test plan: the plan stage and the independence of cells .
//   interleaved_schedule: every cell once per round, repetitions shared out, rounds shuffled
//     (ScheduleGivesEveryCellItsProcessesInRounds, FewRepetitionsUseFewerProcesses).
//   heap workloads: seed 003's method and the page-touching variant by name
//     (PageTouchingHeapWorkloadsAreNamedApart; the run itself: HeapTouchModesReachTheWorker).
//   frames: implied by the workloads, or chosen with --frames (FramesComeFromTheWorkloadsOrFrom
//     TheFramesOption).
//   make_plan: cells of every frame, the placement twin and when it is left out, refused input
//     (PlanBuildsCellsForEveryFrame, PlacementTwinOnlyBesidePlainGlibc, PlanRefusesBadInput).
//   independence, end to end: a cell sees the same buffer placement and allocations alone and
//     inside a larger run (ACellAgreesAloneAndInsideALargerRun); no times are compared.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "plan/plan.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

TEST(Plan, ScheduleGivesEveryCellItsProcessesInRounds) {
  const std::vector<std::size_t> reps = {15, 15, 15, 15};
  const std::vector<task> schedule = interleaved_schedule(reps, 3, 7);
  ASSERT_EQ(schedule.size(), 12u);
  std::map<std::size_t, std::size_t> total;
  for (std::size_t round = 0; round < 3; ++round) {
    std::vector<std::size_t> cells;
    for (std::size_t i = 0; i < 4; ++i) {
      const task& t = schedule[round * 4 + i];
      EXPECT_EQ(t.part, round);
      EXPECT_EQ(t.repetitions, 5u);
      cells.push_back(t.cell);
      total[t.cell] += t.repetitions;
    }
    std::sort(cells.begin(), cells.end());
    EXPECT_EQ(cells, (std::vector<std::size_t>{0, 1, 2, 3})) << "round " << round;
  }
  for (const auto& [cell, n] : total) EXPECT_EQ(n, 15u) << cell;
  // Rounds are shuffled independently: not every round in the same order.
  bool differs = false;
  for (std::size_t i = 0; i < 4; ++i)
    differs = differs || schedule[i].cell != schedule[4 + i].cell ||
              schedule[i].cell != schedule[8 + i].cell;
  EXPECT_TRUE(differs);
}

TEST(Plan, FewRepetitionsUseFewerProcesses) {
  const std::vector<task> schedule = interleaved_schedule({2, 7}, 3, 1);
  std::map<std::size_t, std::vector<std::size_t>> parts;
  for (const task& t : schedule) parts[t.cell].push_back(t.repetitions);
  EXPECT_EQ(parts[0], (std::vector<std::size_t>{1, 1}));     // 2 repetitions: 2 processes
  EXPECT_EQ(parts[1], (std::vector<std::size_t>{3, 2, 2}));  // 7 over 3
}

run_request request_for(std::vector<std::string> workloads, std::vector<std::string> strategies) {
  run_request r;
  r.workloads = std::move(workloads);
  r.strategies = std::move(strategies);
  return r;
}

TEST(Plan, PlanBuildsCellsForEveryFrame) {
  run_request r = request_for({"trade_batch", "fifo_lognormal"}, {"std", "pmr_monotonic"});
  r.placement_check = placement_check_mode::never;
  r.full = true;  // the fixed plan: every cell its default processes (a budget: first two)
  const run_plan plan = make_plan(r, false);
  ASSERT_EQ(plan.cells.size(), 3u);  // 2 batch cells + 1 heap cell, under glibc
  EXPECT_EQ(plan.cells[0].frame, frame::batch);
  EXPECT_EQ(plan.cells[2].frame, frame::heap);
  EXPECT_EQ(plan.cells[2].strategy, "malloc");
  EXPECT_EQ(plan.schedule.size(), 3 * default_processes);
}

TEST(Plan, FramesComeFromTheWorkloadsOrFromTheFramesOption) {
  run_request implied = request_for({"trade_batch", "fifo_lognormal"}, {"std"});
  EXPECT_EQ(make_plan(implied, false).frames, (std::vector<frame>{frame::batch, frame::heap}));

  run_request heap_only = request_for({}, {"std"});
  heap_only.frames = {"heap"};
  const run_plan heap_plan = make_plan(heap_only, false);
  EXPECT_EQ(heap_plan.frames, std::vector<frame>{frame::heap});
  EXPECT_TRUE(heap_plan.workloads.lab.empty());
  EXPECT_FALSE(heap_plan.workloads.heap.empty());  // every heap workload
  for (const cell_spec& c : heap_plan.cells) EXPECT_EQ(c.frame, frame::heap);

  run_request not_measured = request_for({"trade_batch"}, {"std"});
  not_measured.frames = {"heap"};
  EXPECT_THROW(make_plan(not_measured, false), usage_error);
  run_request unknown = request_for({"trade_batch"}, {"std"});
  unknown.frames = {"batch", "nope"};
  EXPECT_THROW(make_plan(unknown, false), usage_error);
  EXPECT_EQ(frame_from_string(to_string(frame::heap)), frame::heap);
}

TEST(Plan, PageTouchingHeapWorkloadsAreNamedApart) {
  const workload_selection seed = split_workloads({"fifo"});
  EXPECT_EQ(seed.heap,
            (std::vector<std::string>{"fifo_uniform", "fifo_exponential", "fifo_lognormal"}));
  const workload_selection pages = split_workloads({"fifo_pages"});
  EXPECT_EQ(pages.heap, (std::vector<std::string>{"fifo_uniform_pages", "fifo_exponential_pages",
                                                  "fifo_lognormal_pages"}));
  EXPECT_THROW(split_workloads({"nope_pages"}), usage_error);
}

TEST(Plan, PlacementTwinOnlyBesidePlainGlibc) {
  const run_plan with = make_plan(request_for({"trade_batch"}, {"std"}), false);
  EXPECT_EQ(with.placement_twin, placement_twin_malloc);
  ASSERT_EQ(with.cells.size(), 2u);
  EXPECT_TRUE(with.cells[1].copy_cliff_removed);
  EXPECT_EQ(with.mallocs.size(), 1u);  // the twin is not one of the user's mallocs

  run_request off = request_for({"trade_batch"}, {"std"});
  off.placement_check = placement_check_mode::never;
  EXPECT_TRUE(make_plan(off, false).placement_twin.empty());
  EXPECT_TRUE(make_plan(request_for({"trade_batch"}, {"std"}), true).placement_twin.empty());
  run_request other = request_for({"trade_batch"}, {"std"});
  other.mallocs = {"glibc_arena2"};
  EXPECT_TRUE(make_plan(other, false).placement_twin.empty());
  run_request heap_only = request_for({"fifo_lognormal"}, {});
  EXPECT_TRUE(make_plan(heap_only, false).placement_twin.empty());
}

// The run drops the twin after its placement probe; both outcomes, whatever this CPU's memmove.
TEST(Plan, PlacementProbeDecidesTheTwinOnlyUnderAuto) {
  EXPECT_TRUE(keep_placement_twin(placement_check_mode::automatic, true));
  EXPECT_FALSE(keep_placement_twin(placement_check_mode::automatic, false));
  EXPECT_TRUE(keep_placement_twin(placement_check_mode::always, false));
  EXPECT_TRUE(keep_placement_twin(placement_check_mode::always, true));
  EXPECT_FALSE(keep_placement_twin(placement_check_mode::never, true));
  for (const char* word : {"auto", "always", "never"})
    EXPECT_STREQ(to_string(parse_placement_check_mode(word)), word);
  EXPECT_THROW(parse_placement_check_mode("sometimes"), usage_error);

  run_request fixed = request_for({"trade_batch", "map_int"}, {"std", "pmr_monotonic"});
  fixed.full = true;  // every cell, the twin's too, the same processes (a budget gives it one)
  run_plan plan = make_plan(fixed, false);
  ASSERT_EQ(plan.cells.size(), 8u);
  const std::size_t tasks = plan.schedule.size();
  drop_placement_twin(plan);  // what `run` does when the probe finds no cliff under auto
  EXPECT_TRUE(plan.placement_twin.empty());
  ASSERT_EQ(plan.cells.size(), 4u);
  EXPECT_EQ(plan.schedule.size(), tasks / 2);
  for (const auto& c : plan.cells) EXPECT_FALSE(c.copy_cliff_removed);
  for (const auto& t : plan.schedule) EXPECT_LT(t.cell, plan.cells.size());
}

TEST(Plan, PlanRefusesBadInput) {
  EXPECT_THROW(make_plan(request_for({""}, {"std"}), false), usage_error);
  EXPECT_THROW(make_plan(request_for({"trade_batch"}, {"std", ""}), false), usage_error);
  run_request nan = request_for({"trade_batch"}, {"std"});
  nan.cell_timeout_seconds = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(make_plan(nan, false), usage_error);
  run_request huge = request_for({"trade_batch"}, {"std"});
  huge.cell_timeout_seconds = 1e9;
  EXPECT_THROW(make_plan(huge, false), usage_error);
}

class Independence : public binary_test {};

TEST_F(Independence, HeapTouchModesReachTheWorker) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "no heap-study cells under ASan";
  const outcome o =
      run("run --workloads fifo_lognormal,fifo_lognormal_pages --iterations 20 "
          "--repetitions 2 --out " +
          (dir_ / "r").string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  ASSERT_EQ(r.at("workloads").size(), 2u);
  EXPECT_EQ(r.at("workloads")[0].at("heap_spec").at("touch"), "once");
  EXPECT_EQ(r.at("workloads")[1].at("heap_spec").at("touch"), "every_page");
  // Different writes, so different checksums: the modes really ran differently.
  EXPECT_NE(r.at("workloads")[0].at("checksum"), r.at("workloads")[1].at("checksum"));
  const std::string report = read_file(dir_ / "r" / "latest" / "report.md");
  EXPECT_NE(report.find("### Seed 003's figure"), std::string::npos);
  EXPECT_NE(report.find("### Page-touching variant"), std::string::npos);
}

json cell_of(const json& results, const std::string& workload, const std::string& strategy) {
  for (const auto& w : results.at("workloads"))
    if (w.at("name") == workload)
      for (const auto& c : w.at("cells"))
        if (c.at("strategy") == strategy && c.at("malloc") == "glibc") return c;
  return nullptr;
}

// The case: vector_push read 1.06x in the default suite and 3.96x alone, because heap
// history from other cells moved where malloc put the vector's buffers. What leaked was
// placement, so placement is what is compared: where every buffer landed (mod 64 and mod 4096,
// and the distance each growth copy moved), and what the cell allocated, must be the same
// whether the cell runs alone or among other workloads. Times are not compared: they are noise.
TEST_F(Independence, ACellAgreesAloneAndInsideALargerRun) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "ASan's allocator: placement is not glibc's";
  const std::string sizes =
      " --iterations 50 --repetitions 4 --processes 2 --no-placement-check --out ";
  const outcome alone = run("run --workloads vector_push --strategies std,pmr_monotonic" + sizes +
                            (dir_ / "alone").string());
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const outcome suite =
      run("run --workloads map_int,string_concat,vector_push,log_lines --strategies "
          "alloclab_arena,pmr_unsync_pool,std,pmr_monotonic" +
          sizes + (dir_ / "suite").string());
  ASSERT_EQ(suite.exit_code, 0) << suite.err;
  const json a = json::parse(read_file(dir_ / "alone" / "latest" / "results.json"));
  const json s = json::parse(read_file(dir_ / "suite" / "latest" / "results.json"));
  for (const char* strategy : {"std", "pmr_monotonic"}) {
    const json alone_cell = cell_of(a, "vector_push", strategy);
    const json suite_cell = cell_of(s, "vector_push", strategy);
    ASSERT_TRUE(alone_cell.is_object() && suite_cell.is_object()) << strategy;
    const json& placement = alone_cell.at("placement");
    ASSERT_TRUE(placement.is_object()) << strategy;
    EXPECT_GT(placement.at("blocks").get<int>(), 0) << strategy;
    EXPECT_EQ(placement, suite_cell.at("placement")) << strategy;
    EXPECT_EQ(alone_cell.at("heap"), suite_cell.at("heap")) << strategy;
    EXPECT_EQ(alone_cell.at("buffer_bytes"), suite_cell.at("buffer_bytes")) << strategy;
  }
}

}  // namespace
}  // namespace alloclab::lab
