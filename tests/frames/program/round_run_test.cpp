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
    run.figures.cpu_seconds = 1.0 + static_cast<double>(t.cell);
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

// A run with every figure set, a knob read back and a knob that cannot be.
run_record every_figure_set() {
  run_record run;
  run.ok = false;
  run.live = true;
  run.reason = "exit status 3";
  run.exit_code = 3;
  run.knobs = {{"narenas", std::string("2"), "mallctl"}, {"top_pad", std::nullopt, "no read-back"}};
  run_figures& f = run.figures;
  f.user_seconds = 0.25;
  f.sys_seconds = 0.5;
  f.cpu_seconds = 0.75;
  f.wall_seconds = 1.5;
  f.peak_rss_bytes = 12345;
  f.minor_faults = 7;
  f.major_faults = 8;
  f.voluntary_switches = 9;
  f.involuntary_switches = 10;
  run.stdout_hash = 0xfedcba9876543210u;
  run.stdout_bytes = 99;
  return run;
}

// A record's figures go through the record's JSON transport and come back the same run.
TEST(TryOnTheSchedule, ARunRecordReadsBackFromItsJson) {
  const run_record run = every_figure_set();
  const run_record back = nlohmann::json(run).get<run_record>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(run));
  EXPECT_EQ(back.ok, run.ok);
  EXPECT_EQ(back.live, run.live);
  EXPECT_EQ(back.reason, run.reason);
  EXPECT_EQ(back.exit_code, run.exit_code);
  ASSERT_EQ(back.knobs.size(), 2u);
  EXPECT_EQ(back.knobs[0].knob, "narenas");
  EXPECT_EQ(back.knobs[0].value, std::optional<std::string>("2"));
  EXPECT_EQ(back.knobs[0].how, "mallctl");
  EXPECT_FALSE(back.knobs[1].value.has_value());
  EXPECT_EQ(back.knobs[1].how, "no read-back");
  EXPECT_EQ(lab::model::write_json(back.figures), lab::model::write_json(run.figures));
  EXPECT_DOUBLE_EQ(back.figures.cpu_seconds, 0.75);
  EXPECT_EQ(back.figures.involuntary_switches, 10u);
  EXPECT_EQ(back.stdout_hash, run.stdout_hash);
  EXPECT_EQ(back.stdout_bytes, 99u);
}

// The record carries the results model's figures of a run (program_model.hpp's one field list).
TEST(TryOnTheSchedule, ARunRecordsFiguresAreTheModelsRunFigures) {
  const nlohmann::json j = nlohmann::json(every_figure_set());
  for (const std::string& name : lab::model::field_names<lab::program_run_figures>())
    EXPECT_TRUE(j.contains(name)) << name;
  EXPECT_TRUE(j.at("knobs")[1].at("value").is_null());
}

// A record missing a key is bad input: nlohmann's exception, as the rest of the record throws.
TEST(TryOnTheSchedule, ARunRecordWithoutAKeyDoesNotRead) {
  nlohmann::json j = nlohmann::json(every_figure_set());
  j.erase("stdout_bytes");
  EXPECT_THROW(j.get<run_record>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace alloclab::program
