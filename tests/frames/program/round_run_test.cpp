// `alloclab try`'s runs on the shared schedule: the program plan (frames/program/program_plan.hpp)
// run in rounds by schedule/round_run.hpp, with an executor of the test's own in place of the
// program (no process is started), and the readings the rounds' stop rule takes from the records
// (schedule/round_stopping.hpp).
#include <memory>
#include <set>

#include <gtest/gtest.h>

#include "frames/program/program_plan.hpp"
#include "schedule/executor.hpp"
#include "schedule/round_run.hpp"
#include "schedule/round_stopping.hpp"

namespace alloclab::program {
namespace {

// Runs nothing: each task's record holds a run whose CPU time is 1 + its cell, failed for `failing`.
class fake_program final : public lab::executor {
 public:
  explicit fake_program(std::size_t failing) : failing_(failing) {}
  void prepare(const lab::run_plan&, const lab::progress_note&) override {}
  lab::measurement_record execute(const lab::run_plan&, const lab::task& t) override {
    run_record run;
    run.ok = t.cell != failing_;
    run.figures.user_seconds = 1.0 + static_cast<double>(t.cell);
    lab::measurement_record r;
    r.frame = program_frame_name;
    r.status = run.ok ? "ok" : "failed";
    r.part = t.part;
    r.figures = lab::frame_figures(run);
    return r;
  }
  nlohmann::json run_facts() const override { return nlohmann::json::object(); }

 private:
  std::size_t failing_;
};

lab::run_plan three_combinations(std::size_t rounds) {
  try_plan frame_plan;
  frame_plan.combinations = {{"glibc", {}}, {"jemalloc", {}}, {"mimalloc", {}}};
  frame_plan.rounds = rounds;
  frame_plan.seed = 11;
  return make_program_plan(frame_plan);
}

lab::executor_factory fake(std::size_t failing = 99) {
  return [failing](lab::frame) { return std::make_unique<fake_program>(failing); };
}

TEST(TryOnTheSchedule, TheCellsAreTheCombinationsAndEveryTaskOneRun) {
  const lab::run_plan plan = three_combinations(4);
  ASSERT_EQ(plan.cells.size(), 3u);
  EXPECT_EQ(plan.cells[1].strategy, "jemalloc");
  EXPECT_EQ(plan.cells[1].frame, lab::frame::program);
  EXPECT_EQ(plan.schedule.size(), 12u);
  for (const lab::task& t : plan.schedule) EXPECT_EQ(t.repetitions, 1u);
  EXPECT_EQ(program_part(plan).combinations.size(), 3u) << "the frame's part in its slot";
}

TEST(TryOnTheSchedule, TheLookAfterEachRoundStopsTheRounds) {
  const lab::run_plan plan = three_combinations(5);
  std::size_t finished = 0;
  std::vector<std::size_t> looked_at;
  const lab::round_records ran = lab::run_rounds(
      plan, fake(), [&](const lab::task&, const lab::measurement_record&) { ++finished; },
      [&](const lab::round_records& so_far) {
        looked_at.push_back(so_far.records.size());
        return so_far.completed < 2;
      });
  EXPECT_EQ(ran.completed, 2u);
  EXPECT_EQ(ran.interrupted_by, 0);
  EXPECT_EQ(looked_at, (std::vector<std::size_t>{3, 6})) << "a look after each whole round";
  ASSERT_EQ(ran.records.size(), 6u);
  EXPECT_EQ(finished, 6u);
  for (std::size_t round = 0; round < 2; ++round) {
    std::set<std::size_t> cells;
    for (std::size_t i = 3 * round; i < 3 * round + 3; ++i) {
      EXPECT_EQ(ran.ran[i].part, round);
      EXPECT_EQ(ran.records[i].part, round);
      cells.insert(ran.ran[i].cell);
    }
    EXPECT_EQ(cells.size(), 3u) << "every combination once in round " << round;
  }
}

TEST(TryOnTheSchedule, WithoutALookTheScheduleRunsToItsEnd) {
  const lab::round_records ran = lab::run_rounds(three_combinations(3), fake(), {}, {});
  EXPECT_EQ(ran.completed, 3u);
  EXPECT_EQ(ran.records.size(), 9u);
}

TEST(TryOnTheSchedule, TheStopRuleReadsEachRunsCpuTimeAndAFailedRunAsFailed) {
  const lab::round_records ran = lab::run_rounds(three_combinations(2), fake(2), {}, {});
  const auto readings = lab::round_readings(ran, stop_figure);
  ASSERT_EQ(readings.size(), 6u);
  for (const lab::round_reading& r : readings) {
    EXPECT_EQ(r.ok, r.cell != 2);
    if (r.ok) {
      EXPECT_DOUBLE_EQ(r.value, 1.0 + static_cast<double>(r.cell));
    }
  }
  const std::vector<run_row> rows = rows_of(ran.ran, ran.records);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[4].round, 1u);
  EXPECT_EQ(rows[4].position, 1u);
  EXPECT_EQ(rows[4].combination, ran.ran[4].cell);
}

// A record's figures go through the record's JSON transport and come back the same run.
TEST(TryOnTheSchedule, ARunRecordReadsBackFromItsJson) {
  run_record run;
  run.ok = true;
  run.live = true;
  run.reason = "";
  run.exit_code = 0;
  run.knobs = {{"narenas", std::string("2"), "mallctl"}, {"top_pad", std::nullopt, "no read-back"}};
  run.figures.user_seconds = 0.25;
  run.figures.sys_seconds = 0.5;
  run.figures.peak_rss_bytes = 12345;
  run.figures.minor_faults = 7;
  run.stdout_hash = 99;
  const run_record back = nlohmann::json(run).get<run_record>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(run));
  ASSERT_EQ(back.knobs.size(), 2u);
  EXPECT_EQ(back.knobs[0].value, std::optional<std::string>("2"));
  EXPECT_FALSE(back.knobs[1].value.has_value());
  EXPECT_DOUBLE_EQ(back.figures.cpu_seconds(), 0.75);
}

}  // namespace
}  // namespace alloclab::program
