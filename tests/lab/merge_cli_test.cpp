// Test plan: `run --shard` and `merge` end to end with the built binary. The runs are tiny (three
// workloads x two strategies, no placement twin unless asked) and budgeted, the default mode and
// the one every job in deploy/ runs: a 1 s budget with 1 ms repetitions runs each cell's first
// process and stops, so a shard holds fewer processes than its plan dealt it. What is tested is
// which cells land where and what merge accepts, not numbers.
// They are needed end to end because a shard is a whole run of its own (probe, calibration,
// results.json, shard.json) and merge reads what those runs wrote. About 30 processes in all.
//   sharded and merged: three shards run one after the other hold disjoint cells; merged, they
//     hold exactly the unsharded run's cells with the same statuses, the claims re-judged from
//     the merged cells (equal to judging the merged file again, and the merged file is not any
//     shard's), no shard warning but a merged one, and the file passes `validate`
//     (ShardAndMerge.ThreeShardsMergeIntoTheWholePlan).
//   the stop rule decides how many processes a cell gets: a shard whose cells hold more processes
//     than the plan dealt them merges, and the merged cells count them
//     (ShardAndMerge.ShardsWithMoreProcessesThanPlannedMerge).
//   refusals, exit 2 and one line: the same shard twice, a missing shard, a shard short of a
//     cell, two builds, another schema version, another configuration, a lone whole run, a whole
//     run beside shards, bad --shard values
//     (ShardAndMerge.Refusals, ShardAndMerge.BadShardValues).
//   --shard-costs: shards dealt by an earlier run's seconds say so and merge into the whole plan;
//     mixed with a shard dealt by estimates they are refused (unless both deals agree); without
//     --shard it is exit 2 (ShardAndMerge.ShardCostsFromAnEarlierRun).
//   fleet: two runs whose environments differ (--placement-check always / never) make a fleet
//     report: both machines side by side, the placement twin named as the differing fact, the
//     twin's rows measured on one machine only with the twin as the fact that goes with them
//     (ShardAndMerge.FleetOfTwoPlacementConfigurations).
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "model_agreement.hpp"
#include "results/claims.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

constexpr const char* sizes = "--strategies std,pmr_monotonic --budget 1s --allow-debug";
constexpr const char* tiny =
    "--workloads vector_push,map_int,log_lines "
    "--strategies std,pmr_monotonic --budget 1s --repetition-time 1 --allow-debug";

class ShardAndMerge : public binary_test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("alloclab_merge_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    run_tiny("--placement-check never --out " + (root_ / "whole").string());
    for (int k = 1; k <= 3; ++k)
      run_tiny(words("--placement-check never --shard {}/3 --out {}", k, shard_dir(k)));
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  // Sets what a run's memmove probe read, in its results.json.
  static void set_copy_cliff(const fs::path& results_file, bool has_cliff) {
    json results = json::parse(read_file(results_file));
    results[json::json_pointer("/environment/placement/probe/has_cliff")] = has_cliff;
    std::ofstream(results_file) << results.dump(1);
  }

  template <class... Args>
  static std::string words(const char* pattern, Args... args) {
    std::string out = pattern;
    (replace_first(out, args), ...);
    return out;
  }
  static void replace_first(std::string& s, const std::string& value) {
    s.replace(s.find("{}"), 2, value);
  }
  static void replace_first(std::string& s, int value) { replace_first(s, std::to_string(value)); }

  static std::string shard_dir(int k) { return (root_ / ("shard" + std::to_string(k))).string(); }
  // `alloclab run` of the tiny plan, or of `sizes` and `args` when `args` names its workloads.
  static void run_tiny(const std::string& args) {
    const bool own = args.find("--workloads") != std::string::npos;
    const bool timed = args.find("--repetition-time") != std::string::npos;
    const std::string command = "env -u LD_PRELOAD '" + binary() + "' run " + (own ? sizes : tiny) +
                                (own && !timed ? " --repetition-time 1 " : " ") + args +
                                " >/dev/null 2>>'" + (root_ / "runs.log").string() + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n"
                                                               << read_file(root_ / "runs.log");
  }
  static json results_in(const fs::path& dir) {
    return json::parse(read_file(dir / "results.json"));
  }
  // workload/strategy/malloc -> status, every cell of results[workloads]
  static std::map<std::string, std::string> statuses(const json& results) {
    std::map<std::string, std::string> out;
    for (const auto& w : results.at("workloads"))
      for (const auto& c : w.at("cells"))
        out[w.at("name").get<std::string>() + "/" + c.at("strategy").get<std::string>() + "/" +
            c.at("malloc").get<std::string>()] = c.at("status");
    return out;
  }
  static std::map<std::string, int> verdict_counts(const json& claims) {
    std::map<std::string, int> n;
    for (const auto& c : claims) ++n[c.at("verdict").get<std::string>()];
    return n;
  }
  void expect_refused(const std::string& args, const std::string& says) {
    const outcome o = run("merge " + args + " -o '" + (dir_ / "out").string() + "'");
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
  }

  static fs::path root_;
};

fs::path ShardAndMerge::root_;

TEST_F(ShardAndMerge, ThreeShardsMergeIntoTheWholePlan) {
  const json whole = results_in(root_ / "whole" / "latest");
  std::set<std::string> seen;
  for (int k = 1; k <= 3; ++k) {
    const json shard = results_in(fs::path(shard_dir(k)) / "latest");
    EXPECT_EQ(shard.at("shard").at("index"), k);
    EXPECT_EQ(shard.at("shard").at("plan_cells"), 6);
    EXPECT_TRUE(fs::exists(fs::path(shard_dir(k)) / "latest" / "shard.json"));
    for (const auto& [cell, status] : statuses(shard))
      EXPECT_TRUE(seen.insert(cell).second) << cell;
  }
  EXPECT_EQ(seen.size(), 6u);

  const outcome o = run(words("merge {} {} {} -o {}", shard_dir(2), shard_dir(1), shard_dir(3),
                              (dir_ / "merged").string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("merged 3 shards: 6 cells"), std::string::npos) << o.out;
  const json merged = results_in(dir_ / "merged");
  // The results model describes what the fleet writes: a run's budget and noise, a shard's
  // `shard`, a merge's `merged`.
  model_agreement::expect_model_agrees(whole, "the whole plan's results");
  model_agreement::expect_model_agrees(results_in(fs::path(shard_dir(2)) / "latest"), "shard 2");
  model_agreement::expect_model_agrees(merged, "the merged results");
  EXPECT_EQ(statuses(merged), statuses(whole));
  EXPECT_FALSE(merged.contains("shard"));
  EXPECT_EQ(merged.at("merged").at("shards").size(), 3u);
  EXPECT_EQ(verdict_counts(merged.at("claims")),
            verdict_counts(judge_claims(merged, seed_claims())));
  EXPECT_EQ(merged.at("config").at("workloads"), whole.at("config").at("workloads"));
  bool merged_warning = false;
  for (const auto& w : merged.at("warnings")) {
    EXPECT_EQ(w.get<std::string>().find("SHARD"), std::string::npos);
    merged_warning = merged_warning || w.get<std::string>().rfind("MERGED from 3 shards", 0) == 0;
  }
  EXPECT_TRUE(merged_warning);
  EXPECT_TRUE(fs::exists(dir_ / "merged" / "report.md"));
  EXPECT_TRUE(fs::exists(dir_ / "merged" / "report.html"));
  EXPECT_EQ(run("validate '" + (dir_ / "merged" / "results.json").string() + "'").exit_code, 0);
}

// The records of a shard's cells: workload/strategy/malloc -> processes.
std::map<std::string, std::size_t> processes_per_cell(const json& shard_json) {
  std::map<std::string, std::size_t> n;
  for (const auto& r : shard_json.at("records"))
    ++n[r.at("workload").get<std::string>() + "/" + r.at("strategy").get<std::string>()];
  return n;
}

TEST_F(ShardAndMerge, ShardsWithMoreProcessesThanPlannedMerge) {
  // What the stop rule does when it grows a cell: a shard whose every cell has one more process
  // (a copy of its last one, as the next part) than it has now.
  const fs::path grown = dir_ / "grown";
  fs::copy(fs::path(shard_dir(2)) / "latest", grown, fs::copy_options::recursive);
  json shard = json::parse(read_file(grown / "shard.json"));
  const std::map<std::string, std::size_t> before = processes_per_cell(shard);
  json records = shard.at("records");
  for (const auto& r : shard.at("records")) {
    json extra = r;
    extra["part"] =
        before.at(r.at("workload").get<std::string>() + "/" + r.at("strategy").get<std::string>()) +
        r.at("part").get<std::size_t>();
    records.push_back(extra);
  }
  shard["records"] = records;
  std::ofstream(grown / "shard.json") << shard.dump();
  const outcome o = run(words("merge {} {} {} -o {}", shard_dir(1), grown.string(), shard_dir(3),
                              (dir_ / "merged_grown").string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json merged = results_in(dir_ / "merged_grown");
  EXPECT_EQ(statuses(merged), statuses(results_in(root_ / "whole" / "latest")));
  for (const auto& w : merged.at("workloads"))
    for (const auto& c : w.at("cells")) {
      const std::string key =
          w.at("name").get<std::string>() + "/" + c.at("strategy").get<std::string>();
      if (before.count(key) != 0) {
        EXPECT_EQ(c.at("processes"), 2 * before.at(key)) << key;
      }
    }
  EXPECT_EQ(run("validate '" + (dir_ / "merged_grown" / "results.json").string() + "'").exit_code,
            0);
}

TEST_F(ShardAndMerge, Refusals) {
  expect_refused(words("{} {} {} {}", shard_dir(1), shard_dir(2), shard_dir(3), shard_dir(2)),
                 "overlapping shards");
  expect_refused(words("{} {}", shard_dir(1), shard_dir(3)), "missing shard(s) 2/3");
  expect_refused((root_ / "whole").string(), "nothing to merge");
  expect_refused(words("{} {}", (root_ / "whole").string(), shard_dir(1)), "overlapping runs");

  // Another build: a copy of shard 3 whose results name another revision.
  const fs::path other = dir_ / "other_build";
  fs::copy(fs::path(shard_dir(3)) / "latest", other, fs::copy_options::recursive);
  json r = results_in(other);
  r["environment"]["git_revision"] = "0123456789ab";
  std::ofstream(other / "results.json") << r.dump();
  expect_refused(words("{} {} {}", shard_dir(1), shard_dir(2), other.string()), "mixed builds");
  // Another schema version.
  r["schema_version"] = r["schema_version"].get<int>() - 1;
  std::ofstream(other / "results.json") << r.dump();
  expect_refused(words("{} {} {}", shard_dir(1), shard_dir(2), other.string()), "schema_version");
  // A shard that lost a cell's record.
  const fs::path short_of = dir_ / "short_of_a_cell";
  fs::copy(fs::path(shard_dir(3)) / "latest", short_of, fs::copy_options::recursive);
  json shard = json::parse(read_file(short_of / "shard.json"));
  shard["records"].erase(shard["records"].size() - 1);
  std::ofstream(short_of / "shard.json") << shard.dump();
  expect_refused(words("{} {} {}", shard_dir(1), shard_dir(2), short_of.string()),
                 "does not hold the cells its index deals it");
  // Another configuration: shard 3 of a run with more samples.
  run_tiny(
      "--workloads vector_push,map_int,log_lines --repetition-time 2 --placement-check never "
      "--shard 3/3 --out " +
      (dir_ / "other_config").string());
  expect_refused(words("{} {} {}", shard_dir(1), shard_dir(2), (dir_ / "other_config").string()),
                 "different configurations");
}

// The probe's copy-cliff verdict is measured, and can differ between two runs of one machine
// under load: it must not split one machine's shards into two machine types.
TEST_F(ShardAndMerge, AProbeThatReadsTheCliffDifferentlyIsTheSameMachine) {
  const fs::path flipped = dir_ / "flipped_probe";
  fs::copy(fs::path(shard_dir(3)) / "latest", flipped, fs::copy_options::recursive);
  json r = results_in(flipped);
  json& cliff = r["environment"]["placement"]["probe"]["has_cliff"];
  cliff = !(cliff.is_boolean() && cliff.get<bool>());
  std::ofstream(flipped / "results.json") << r.dump();
  const outcome o = run(words("merge {} {} {} -o {}", shard_dir(1), shard_dir(2), flipped.string(),
                              (dir_ / "merged").string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("merged 3 shards"), std::string::npos) << o.out;
}

TEST_F(ShardAndMerge, ShardCostsFromAnEarlierRun) {
  const std::string costs = (root_ / "whole" / "latest" / "results.json").string();
  for (int k = 1; k <= 3; ++k)
    run_tiny(words("--placement-check never --shard {}/3 --shard-costs {} --out {}", k, costs,
                   (dir_ / ("costed" + std::to_string(k))).string()));
  const json first = results_in(dir_ / "costed1" / "latest");
  EXPECT_EQ(first.at("shard").at("costs"), "measured in " + costs);
  const outcome o =
      run(words("merge {} {} {} -o {}", (dir_ / "costed1").string(), (dir_ / "costed2").string(),
                (dir_ / "costed3").string(), (dir_ / "merged").string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(statuses(results_in(dir_ / "merged")),
            statuses(results_in(root_ / "whole" / "latest")));
  // A shard dealt by other costs does not merge with these (when the two deals differ).
  const auto deal_of = [](const fs::path& dir) {
    return json::parse(read_file(dir / "latest" / "shard.json")).at("deal");
  };
  if (deal_of(dir_ / "costed1") != deal_of(shard_dir(1)))
    expect_refused(
        words("{} {} {}", (dir_ / "costed1").string(), (dir_ / "costed2").string(), shard_dir(3)),
        "split the plan differently");
  EXPECT_EQ(
      run("run --quick --shard-costs '" + costs + "' --out '" + dir_.string() + "'").exit_code, 2);
}

TEST_F(ShardAndMerge, BadShardValues) {
  for (const char* bad : {"0/3", "4/3", "x", "1/0", "auto"}) {
    const outcome o = run(
        std::string("run --quick --shard ") + bad + " --out '" + dir_.string() + "'",
        "-u ALLOCLAB_SHARD_INDEX -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID -u CI_NODE_INDEX");
    EXPECT_EQ(o.exit_code, 2) << bad << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << o.err;
  }
  const outcome o = run(std::string("run ") + tiny + " --shard 4/4 --out '" + dir_.string() + "'");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("use at most 3 shard(s)"), std::string::npos) << o.err;
}

TEST_F(ShardAndMerge, FleetOfTwoPlacementConfigurations) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "a sanitizer build measures no placement twin";
  run_tiny("--workloads vector_push --placement-check always --out " + (dir_ / "twin").string());
  run_tiny("--workloads vector_push --placement-check never --out " + (dir_ / "plain").string());
  // What the memmove probe read depends on the CPU and on how busy it was: fix it, so the
  // machines differ in the copy cliff as they do in the twin, whatever this host is.
  set_copy_cliff(dir_ / "twin" / "latest" / "results.json", true);
  set_copy_cliff(dir_ / "plain" / "latest" / "results.json", false);
  const outcome o = run(words("merge {} {} -o {}", (dir_ / "twin").string(),
                              (dir_ / "plain").string(), (dir_ / "fleet").string()));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json fleet = json::parse(read_file(dir_ / "fleet" / "fleet.json"));
  EXPECT_EQ(fleet.at("machines").size(), 2u);
  EXPECT_EQ(fleet.at("differing_facts"), json::array({"copy_cliff", "placement_twin"}));
  bool twin_row = false;
  for (const auto& row : fleet.at("comparisons")) {
    if (row.at("id").get<std::string>().find("glibc_nocliff") == std::string::npos) continue;
    twin_row = true;
    EXPECT_EQ(row.at("verdicts").at("B"), "not measured");
    EXPECT_EQ(row.at("agreement"), "measured on some machines only");
    std::set<std::string> facts;
    for (const auto& f : row.at("facts")) facts.insert(f.at("fact").get<std::string>());
    EXPECT_EQ(facts, (std::set<std::string>{"copy_cliff", "placement_twin"}));
  }
  EXPECT_TRUE(twin_row);
  const std::string md = read_file(dir_ / "fleet" / "fleet.md");
  EXPECT_NE(md.find("Environment facts that differ: copy_cliff, placement_twin."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Claims side by side"), std::string::npos);
  EXPECT_NE(md.find("| conclusion | A | B | agreement |"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "fleet" / "machine-A" / "results.json"));
  EXPECT_TRUE(fs::exists(dir_ / "fleet" / "fleet.html"));
}

}  // namespace
}  // namespace alloclab::lab
