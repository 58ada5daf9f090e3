#include <gtest/gtest.h>

#include "measure/measurement_json.hpp"
#include "measure/split_run.hpp"

namespace alloclab::lab {
namespace {

cell_measurement cell_with(const std::string& strategy, std::vector<double> medians,
                           std::uint64_t checksum = 7) {
  cell_measurement c;
  c.strategy = strategy;
  c.samples_ns = medians;
  c.repetition_medians_ns = medians;
  c.repetition_p99_ns = medians;
  c.timed_iterations = medians.size();
  c.minor_faults = 1;
  c.checksum = checksum;
  return c;
}

run_measurement part_with(std::vector<cell_measurement> cells) {
  run_measurement run;
  run.config.workloads = {"w"};
  run.config.repetitions = cells.front().repetition_medians_ns.size();
  workload_measurement w;
  w.name = "w";
  w.checksum = 7;
  w.cells = std::move(cells);
  run.workloads.push_back(std::move(w));
  return run;
}

TEST(SplitRun, RepetitionsAreSharedOutAndEachProcessGetsItsOwnOrder) {
  run_config config;
  config.repetitions = 7;
  config.processes = 3;
  config.order_seed = 100;
  EXPECT_EQ(part_config(config, 0).repetitions, 3u);
  EXPECT_EQ(part_config(config, 1).repetitions, 2u);
  EXPECT_EQ(part_config(config, 2).repetitions, 2u);
  EXPECT_NE(part_config(config, 0).order_seed, part_config(config, 1).order_seed);
  EXPECT_EQ(part_config(config, 1).seed, config.seed) << "the workload data stays the same";
  EXPECT_EQ(part_config(config, 2).processes, 1u);
}

TEST(SplitRun, MergingConcatenatesRepetitionsAndAddsCounts) {
  run_config config;
  config.repetitions = 3;
  config.processes = 2;
  const run_measurement merged = merge_parts(
      config, {part_with({cell_with("std", {10, 11})}), part_with({cell_with("std", {13})})});
  const cell_measurement& c = merged.workloads.at(0).cells.at(0);
  EXPECT_EQ(c.repetition_medians_ns, (std::vector<double>{10, 11, 13}));
  EXPECT_EQ(c.samples_ns.size(), 3u);
  EXPECT_EQ(c.minor_faults, 2);
  EXPECT_EQ(c.timed_iterations, 3u);
  EXPECT_EQ(merged.config.processes, 2u);
}

TEST(SplitRun, ProcessesThatBuiltDifferentThingsGiveNoNumber) {
  run_config config;
  EXPECT_THROW(merge_parts(config, {part_with({cell_with("std", {10})}),
                                    part_with({cell_with("std", {10}, 8)})}),
               checksum_mismatch);
}

TEST(SplitRun, AnArenaThatOverflowedInOneProcessHasNoNumber) {
  run_config config;
  cell_measurement overflowed = cell_with("alloclab_arena", {});
  overflowed.status = cell_status::overflowed;
  overflowed.reason = "buffer exhausted";
  const run_measurement merged = merge_parts(
      config, {part_with({cell_with("alloclab_arena", {10})}), part_with({overflowed})});
  const cell_measurement& c = merged.workloads.at(0).cells.at(0);
  EXPECT_EQ(c.status, cell_status::overflowed);
  EXPECT_EQ(c.reason, "buffer exhausted");
  EXPECT_TRUE(c.samples_ns.empty());
}

TEST(SplitRun, MeasurementSurvivesTheTripThroughJson) {
  run_measurement run = part_with({cell_with("std", {1.5, 2.5})});
  run.config.order_seed = 9;
  run.config.processes = 4;
  run.workloads[0].footprint.monotonic_footprint = 4096;
  run.workloads[0].cells[0].warning = "fell back";
  run.clock.overhead_ns = 20;
  const run_measurement back = run_measurement_from_json(to_json(run));
  EXPECT_EQ(to_json(back), to_json(run));
  EXPECT_EQ(back.config.order_seed, 9u);
  EXPECT_EQ(back.workloads[0].footprint.monotonic_footprint, 4096u);
  EXPECT_EQ(back.workloads[0].cells[0].repetition_medians_ns, (std::vector<double>{1.5, 2.5}));
}

}  // namespace
}  // namespace alloclab::lab
