// Tests of records/: a measurement record and its frame's figures.
//
// Test plan:
//   FrameFigures:      a box gives back the type it holds and nothing else (nullptr for another
//                      frame's struct, or when empty); reset empties it; its JSON is the type's.
//   MeasurementRecord: every frame that runs measures a record that round-trips through its JSON
//                      with the figures under the frame's name, read back as the same type; a
//                      record without figures writes null and reads back without; a record of a
//                      frame the table does not know, or with figures of the wrong shape, throws
//                      nlohmann's exception (what shard files and workers report as bad input).
#include <gtest/gtest.h>

#include "frames/batch/process_figures.hpp"
#include "main/frame_registry.hpp"
#include "frames/heap/process_figures.hpp"
#include "frames/replay/process_figures.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {
namespace {

TEST(FrameFigures, GivesBackOnlyTheTypeItHolds) {
  heap_figures heap;
  heap.ns_per_pair_reps = {12.5, 13.0};
  frame_figures box(heap);
  ASSERT_TRUE(box);
  ASSERT_NE(box.get<heap_figures>(), nullptr);
  EXPECT_EQ(box.get<heap_figures>()->ns_per_pair_reps, heap.ns_per_pair_reps);
  EXPECT_EQ(box.get<replay_figures>(), nullptr);
  EXPECT_EQ(box.to_json(), nlohmann::json(heap));
  box.reset();
  EXPECT_FALSE(box);
  EXPECT_EQ(box.get<heap_figures>(), nullptr);
  EXPECT_TRUE(box.to_json().is_null());
}

measurement_record record_of(const char* frame) {
  measurement_record r;
  r.frame = frame;
  r.workload = "w";
  r.strategy = "s";
  r.malloc = "glibc";
  r.part = 2;
  r.status = "ok";
  r.worker = {{"wall_seconds", 0.5}};
  return r;
}

TEST(MeasurementRecord, RoundTripsEachFramesFiguresUnderItsName) {
  measurement_record batch = record_of("batch");
  batch_figures b;
  b.batch_size = 7;
  b.cell.repetition_medians_ns = {100, 101};
  batch.figures = frame_figures(b);
  const nlohmann::json j = record_to_json(batch);
  EXPECT_EQ(j.at("batch").at("batch_size"), 7);
  const measurement_record back = read_record(j);
  ASSERT_NE(back.figures.get<batch_figures>(), nullptr);
  EXPECT_EQ(back.figures.get<batch_figures>()->cell.repetition_medians_ns,
            b.cell.repetition_medians_ns);
  EXPECT_EQ(back.part, 2u);
  EXPECT_EQ(record_to_json(back), j);

  measurement_record replay = record_of("replay");
  replay_figures f;
  f.calls = 99;
  replay.figures = frame_figures(f);
  const measurement_record replay_back = read_record(record_to_json(replay));
  ASSERT_NE(replay_back.figures.get<replay_figures>(), nullptr);
  EXPECT_EQ(replay_back.figures.get<replay_figures>()->calls, 99u);
  EXPECT_EQ(replay_back.figures.get<batch_figures>(), nullptr);
}

TEST(MeasurementRecord, EveryPlannedFrameReadsItsFigures) {
  for (const frame_module& row : frame_table()) {
    if (row.make_executor != nullptr) {
      EXPECT_NE(row.read_figures, nullptr) << row.name;
    }
  }
}

TEST(MeasurementRecord, ARecordWithoutFiguresReadsBackWithout) {
  measurement_record failed = record_of("heap");
  failed.status = "failed";
  failed.reason = "crashed";
  const nlohmann::json j = record_to_json(failed);
  EXPECT_TRUE(j.at("heap").is_null());
  const measurement_record back = read_record(j);
  EXPECT_FALSE(back.figures);
  EXPECT_EQ(back.reason, "crashed");
}

TEST(MeasurementRecord, RejectsUnknownFramesAndFiguresOfTheWrongShape) {
  nlohmann::json j = record_to_json(record_of("heap"));
  j["frame"] = "toy";
  EXPECT_THROW(read_record(j), nlohmann::json::exception);
  j["frame"] = "heap";
  j["heap"] = {{"ns_per_pair_reps", "fast"}};
  EXPECT_THROW(read_record(j), nlohmann::json::exception);
  j.erase("heap");
  EXPECT_THROW(read_record(j), nlohmann::json::exception);
}

}  // namespace
}  // namespace alloclab::lab
