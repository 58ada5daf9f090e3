// Test plan: `run --shard` on the plan alone (no process runs).
//   parse: K/N and its bad forms (exit 2 through usage_error), auto from each engine's pair of
//     variables, the 0-based Kubernetes and Slurm indices, a missing count, none set
//     (ParseShard.*).
//   deal: every cell in exactly one shard, a workload's cells (strategies, mallocs, frames, the
//     placement twin) together, the same shards every time, loads balanced by expected cost or,
//     given, by an earlier run's measured seconds; more shards than workloads refused
//     (DealWorkloads.*).
//   keep: a shard's schedule is the plan's with the other shards' tasks left out (same parts,
//     repetitions, seeds, order), so every round still passes over each of its cells, and its
//     workloads and frames are its own (KeepShard.*).
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "main/frame_registry.hpp"
#include "plan/plan.hpp"
#include "plan/shard.hpp"

namespace alloclab::lab {
namespace {

env_lookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::pair<std::size_t, std::size_t> index_count(const shard_spec& s) {
  return {s.index, s.count};
}

TEST(ParseShard, IndexOverCount) {
  const shard_spec s = parse_shard("2/3", env_of({}));
  EXPECT_EQ(index_count(s), std::make_pair(std::size_t{2}, std::size_t{3}));
  EXPECT_EQ(s.source, "--shard 2/3");
  EXPECT_EQ(index_count(parse_shard("1/1", env_of({}))),
            std::make_pair(std::size_t{1}, std::size_t{1}));
}

TEST(ParseShard, BadFormsAreUsageErrors) {
  for (const char* bad :
       {"", "3", "0/3", "4/3", "1/0", "a/b", "1/3x", "-1/3", "1/1001", "2/ 3", "1//3", "/3", "2/"})
    EXPECT_THROW(parse_shard(bad, env_of({})), usage_error) << bad;
}

TEST(ParseShard, OutOfRangeSaysTheOptionOnce) {
  try {
    parse_shard("0/2", env_of({}));
    FAIL() << "0/2 was accepted";
  } catch (const usage_error& e) {
    // Was "--shard: --shard 0/2: the index must be 1 to 2 (the count)".
    EXPECT_EQ(std::string(e.what()), "--shard 0/2: the index must be 1 to 2 (for 2 shards)");
  }
}

TEST(ParseShard, AutoFromEachEngine) {
  EXPECT_EQ(index_count(parse_shard(
                "auto", env_of({{"ALLOCLAB_SHARD_INDEX", "2"}, {"ALLOCLAB_SHARD_COUNT", "3"}}))),
            std::make_pair(std::size_t{2}, std::size_t{3}));
  // Kubernetes: JOB_COMPLETION_INDEX counts from 0; the count comes from the manifest.
  EXPECT_EQ(index_count(parse_shard(
                "auto", env_of({{"JOB_COMPLETION_INDEX", "0"}, {"ALLOCLAB_SHARD_COUNT", "4"}}))),
            std::make_pair(std::size_t{1}, std::size_t{4}));
  // Slurm: the array's first index is SLURM_ARRAY_TASK_MIN (--array=3-6).
  EXPECT_EQ(index_count(parse_shard("auto", env_of({{"SLURM_ARRAY_TASK_ID", "5"},
                                                    {"SLURM_ARRAY_TASK_MIN", "3"},
                                                    {"SLURM_ARRAY_TASK_COUNT", "4"}}))),
            std::make_pair(std::size_t{3}, std::size_t{4}));
  EXPECT_EQ(index_count(parse_shard(
                "auto", env_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}))),
            std::make_pair(std::size_t{3}, std::size_t{3}));
  EXPECT_EQ(
      index_count(parse_shard("auto", env_of({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "2"}}))),
      std::make_pair(std::size_t{1}, std::size_t{2}));
}

TEST(ParseShard, AutoPrefersTheLabsOwnPair) {
  const shard_spec s = parse_shard("auto", env_of({{"ALLOCLAB_SHARD_INDEX", "1"},
                                                   {"ALLOCLAB_SHARD_COUNT", "2"},
                                                   {"SLURM_ARRAY_TASK_ID", "7"},
                                                   {"SLURM_ARRAY_TASK_COUNT", "9"}}));
  EXPECT_EQ(index_count(s), std::make_pair(std::size_t{1}, std::size_t{2}));
  EXPECT_NE(s.source.find("ALLOCLAB_SHARD_INDEX=1"), std::string::npos);
}

TEST(ParseShard, AutoRefusals) {
  EXPECT_THROW(parse_shard("auto", env_of({})), usage_error);
  EXPECT_THROW(parse_shard("auto", env_of({{"JOB_COMPLETION_INDEX", "1"}})), usage_error);
  EXPECT_THROW(
      parse_shard("auto", env_of({{"JOB_COMPLETION_INDEX", "3"}, {"ALLOCLAB_SHARD_COUNT", "3"}})),
      usage_error);  // 0-based: 3 is the fourth of three
  EXPECT_THROW(
      parse_shard("auto", env_of({{"ALLOCLAB_SHARD_INDEX", "x"}, {"ALLOCLAB_SHARD_COUNT", "3"}})),
      usage_error);
  EXPECT_THROW(parse_shard("auto", env_of({{"SLURM_ARRAY_TASK_ID", "1"},
                                           {"SLURM_ARRAY_TASK_MIN", "2"},
                                           {"SLURM_ARRAY_TASK_COUNT", "3"}})),
               usage_error);
  // Kubernetes counts from 0: the refusal names the range in its numbering (it said "1 to 2").
  try {
    parse_shard("auto", env_of({{"JOB_COMPLETION_INDEX", "5"}, {"ALLOCLAB_SHARD_COUNT", "2"}}));
    ADD_FAILURE() << "index 5 of 2 was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("the index must be 0 to 1"), std::string::npos)
        << e.what();
  }
  try {
    parse_shard("auto", env_of({{"JOB_COMPLETION_INDEX", "1"}}));
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("ALLOCLAB_SHARD_COUNT"), std::string::npos);
  }
}

run_plan small_plan(placement_check_mode twin = placement_check_mode::never) {
  run_request r;
  r.workloads = {"vector_push", "map_int", "log_lines", "trade_batch", "string_concat"};
  r.strategies = {"std", "pmr_monotonic", "alloclab_arena"};
  r.frames = {"batch", "serve"};
  r.placement_check = twin;
  r.quick = true;
  return make_plan(r, false);
}

std::vector<run_plan> all_shards(const run_plan& plan, std::size_t count) {
  std::vector<run_plan> shards;
  for (std::size_t k = 1; k <= count; ++k) {
    run_plan p = plan;
    keep_workloads(p, deal_workloads(plan, count, expected_task_seconds).at(k - 1));
    shards.push_back(std::move(p));
  }
  return shards;
}

TEST(DealWorkloads, EveryCellInExactlyOneShardWithItsWorkload) {
  const run_plan plan = small_plan(placement_check_mode::always);  // twin cells too
  ASSERT_FALSE(plan.placement_twin.empty());
  std::multiset<std::string> seen;
  std::map<std::string, std::size_t> shard_of_workload;
  const auto shards = all_shards(plan, 3);
  for (std::size_t k = 0; k < shards.size(); ++k)
    for (const cell_spec& c : shards[k].cells) {
      seen.insert(cell_key(c) + (c.copy_cliff_removed ? "+twin" : ""));
      const auto [at, fresh] = shard_of_workload.emplace(c.workload, k);
      EXPECT_EQ(at->second, k) << c.workload << " is split over shards";
    }
  std::multiset<std::string> expected;
  for (const cell_spec& c : plan.cells)
    expected.insert(cell_key(c) + (c.copy_cliff_removed ? "+twin" : ""));
  EXPECT_EQ(seen, expected);
}

TEST(DealWorkloads, DeterministicAndBalanced) {
  const run_plan plan = small_plan();
  EXPECT_EQ(deal_workloads(plan, 2, expected_task_seconds),
            deal_workloads(small_plan(), 2, expected_task_seconds));
  // Equal workloads (same cells, same sizes): five over two shards is three and two.
  const auto dealt = deal_workloads(plan, 2, expected_task_seconds);
  EXPECT_EQ(dealt[0].size() + dealt[1].size(), 5u);
  EXPECT_LE(std::max(dealt[0].size(), dealt[1].size()), 3u);
  // Expected cost decides: a serve-only workload outweighs batch-only ones.
  run_request r;
  r.workloads = {"vector_push", "map_int", "log_lines"};
  r.strategies = {"std", "pmr_monotonic"};
  r.frames = {"batch"};
  r.quick = true;
  r.placement_check = placement_check_mode::never;
  run_plan mixed = make_plan(r, false);
  const std::size_t heavy = mixed.cells.size();
  for (const char* s : {"std", "pmr_monotonic"})
    mixed.cells.push_back({"log_lines", s, mixed.mallocs.front(), frame::serve, false});
  for (std::size_t c = heavy; c < mixed.cells.size(); ++c) mixed.schedule.push_back({c, 0, 2, 42});
  const auto by_cost = deal_workloads(mixed, 2, expected_task_seconds);
  EXPECT_EQ(by_cost[0], std::vector<std::string>{"log_lines"});
  EXPECT_EQ(by_cost[1], (std::vector<std::string>{"vector_push", "map_int"}));
}

TEST(DealWorkloads, MoreShardsThanWorkloadsIsRefused) {
  EXPECT_THROW(deal_workloads(small_plan(), 6, expected_task_seconds), usage_error);
  EXPECT_NO_THROW(deal_workloads(small_plan(), 5, expected_task_seconds));
}

TEST(DealWorkloads, MeasuredCostsOutweighEstimates) {
  // Estimates weigh these five alike; an earlier run says vector_push took as long as the rest.
  const run_plan plan = small_plan();
  const workload_costs measured = {{"vector_push", 100.0},
                                   {"map_int", 25.0},
                                   {"log_lines", 25.0},
                                   {"trade_batch", 25.0},
                                   {"string_concat", 25.0}};
  const auto dealt = deal_workloads(plan, 2, expected_task_seconds, measured);
  EXPECT_EQ(dealt[0], std::vector<std::string>{"vector_push"});
  EXPECT_EQ(dealt[1].size(), 4u);
  EXPECT_NE(deal_workloads(plan, 2, expected_task_seconds), dealt);
}

TEST(KeepShard, ScheduleIsThePlansWithTheOtherShardsLeftOut) {
  const run_plan plan = small_plan();
  for (const run_plan& shard : all_shards(plan, 2)) {
    std::vector<std::string> expected;
    for (const task& t : plan.schedule) {
      const cell_spec& c = plan.cells[t.cell];
      if (std::any_of(shard.cells.begin(), shard.cells.end(),
                      [&](const cell_spec& s) { return s.workload == c.workload; }))
        expected.push_back(cell_key(c) + "#" + std::to_string(t.part) + "#" +
                           std::to_string(t.repetitions) + "#" + std::to_string(t.order_seed));
    }
    std::vector<std::string> kept;
    for (const task& t : shard.schedule)
      kept.push_back(cell_key(shard.cells.at(t.cell)) + "#" + std::to_string(t.part) + "#" +
                     std::to_string(t.repetitions) + "#" + std::to_string(t.order_seed));
    EXPECT_EQ(kept, expected);
    // Interleaving: each round (part) passes over every cell of the shard once.
    std::map<std::size_t, std::set<std::size_t>> cells_of_round;
    for (const task& t : shard.schedule) EXPECT_TRUE(cells_of_round[t.part].insert(t.cell).second);
    EXPECT_EQ(cells_of_round[0].size(), shard.cells.size());
  }
}

TEST(KeepShard, WorkloadsAndFramesAreTheShardsOwn) {
  run_request r;
  r.workloads = {"vector_push", "fifo_uniform"};
  r.strategies = {"std"};
  r.quick = true;
  r.placement_check = placement_check_mode::never;
  const run_plan plan = make_plan(r, false);
  ASSERT_EQ(plan.frames, (std::vector<frame>{frame::batch, frame::heap}));
  for (const run_plan& shard : all_shards(plan, 2)) {
    ASSERT_EQ(shard.frames.size(), 1u);
    const bool batch = shard.frames.front() == frame::batch;
    EXPECT_EQ(shard.workloads.lab.size(), batch ? 1u : 0u);
    EXPECT_EQ(shard.workloads.heap.size(), batch ? 0u : 1u);
    for (const cell_spec& c : shard.cells) EXPECT_EQ(c.frame, shard.frames.front());
  }
}

}  // namespace
}  // namespace alloclab::lab
