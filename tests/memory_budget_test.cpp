// Test plan for alloclab/memory_budget.hpp (fixtures: tests/data/cgroup/README.md).
//
// | public member | test |
// |---|---|
// | detect(): cgroup v2, tightest limit up the tree, high vs max | detects_cgroup_v2_with_the_tightest_limit_up_the_hierarchy |
// | detect(): v2 in a cgroup namespace | detects_cgroup_v2_at_a_namespace_root |
// | detect(): v1 on a hybrid mount, the unlimited sentinel, parent limit | detects_cgroup_v1_on_a_hybrid_mount |
// | detect(): v1 in a container's own mount | detects_cgroup_v1_at_the_mount_when_the_leaf_is_not_visible |
// | detect(): unlimited cgroups fall through | unlimited_cgroups_fall_through_to_the_caller_limit |
// | detect(): no cgroup (none), with and without caller limit | no_cgroup_and_no_caller_limit_is_source_none, no_cgroup_uses_the_caller_limit_with_rss |
// | detect(): malformed files | malformed_fixture.* |
// | options.prefer_caller_limit | prefer_caller_limit_puts_the_caller_first |
// | usage(): re-read on each call, nullopt when unreadable | usage_reads_the_file_each_time |
// | resident_bytes_from_statm() | parses_statm |
// | to_string(budget_source) | names_every_source |
// | the live /proc and /sys | live_machine_reports_a_consistent_source |
// | cgroup_usage_file(): v2, v1, none, malformed, with or without a limit | cgroup_usage_file_is_found_without_a_limit |
// | never creates or writes a cgroup file | detection_only_reads |
#include <alloclab/memory_budget.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/text_contains.hpp"

namespace {

using alloclab::budget_source;
using alloclab::memory_budget;
using alloclab::memory_budget_options;
using alloclab::testing::contains;

const std::string fixtures = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/";
const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));

memory_budget_options at(const std::string& fixture,
                         std::optional<std::uint64_t> caller_limit = std::nullopt) {
  memory_budget_options options;
  options.proc_self = fixtures + fixture + "/proc_self";
  options.cgroup_root = fixtures + fixture + "/sys_fs_cgroup";
  options.caller_limit = caller_limit;
  return options;
}

TEST(memory_budget, detects_cgroup_v2_with_the_tightest_limit_up_the_hierarchy) {
  const memory_budget_options options = at("v2", 1u << 20);
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::cgroup_v2) << budget.reason();
  EXPECT_EQ(budget.hard_limit(), 1073741824u) << "memory.max of the parent app.slice";
  EXPECT_EQ(budget.high_limit(), 536870912u) << "memory.high of the leaf";
  EXPECT_EQ(budget.limit(), 536870912u) << "the tighter of the two";
  const std::string leaf = options.cgroup_root + "/app.slice/service.scope";
  EXPECT_EQ(budget.cgroup_directory(), leaf);
  EXPECT_EQ(budget.usage_path(), leaf + "/memory.current");
  EXPECT_EQ(budget.usage(), 268435456u) << "the leaf's memory.current, not the parent's";
  EXPECT_TRUE(contains(budget.reason(), "cgroup v2 in use")) << budget.reason();
  EXPECT_TRUE(contains(budget.reason(), "from " + options.cgroup_root + "/app.slice"))
      << budget.reason();
}

TEST(memory_budget, detects_cgroup_v2_at_a_namespace_root) {
  const memory_budget_options options = at("v2_namespace_root");
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::cgroup_v2) << budget.reason();
  EXPECT_EQ(budget.limit(), 2147483648u);
  EXPECT_EQ(budget.high_limit(), memory_budget::unlimited) << "'max' means unlimited";
  EXPECT_EQ(budget.cgroup_directory(), options.cgroup_root);
  EXPECT_EQ(budget.usage(), 1073741824u);
}

TEST(memory_budget, detects_cgroup_v1_on_a_hybrid_mount) {
  const memory_budget_options options = at("v1_hybrid");
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::cgroup_v1) << budget.reason();
  EXPECT_EQ(budget.limit(), 2147483648u) << "the parent's limit; the leaf's is the sentinel";
  EXPECT_EQ(budget.hard_limit(), 2147483648u);
  EXPECT_EQ(budget.high_limit(), memory_budget::unlimited) << "v1 has no memory.high";
  EXPECT_EQ(budget.cgroup_directory(), options.cgroup_root + "/memory/docker/abc");
  EXPECT_EQ(budget.usage(), 104857600u);
  EXPECT_TRUE(contains(budget.reason(), "cgroup v2: no memory.current")) << budget.reason();
}

TEST(memory_budget, detects_cgroup_v1_at_the_mount_when_the_leaf_is_not_visible) {
  const memory_budget_options options = at("v1_namespaced");
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::cgroup_v1) << budget.reason();
  EXPECT_EQ(budget.limit(), 536870912u);
  EXPECT_EQ(budget.cgroup_directory(), options.cgroup_root + "/memory");
  EXPECT_EQ(budget.usage(), 1048576u);
}

TEST(memory_budget, unlimited_cgroups_fall_through_to_the_caller_limit) {
  for (const char* fixture : {"v2_unlimited", "v1_unlimited"}) {
    SCOPED_TRACE(fixture);
    const memory_budget budget = memory_budget::detect(at(fixture, 4096u * page));
    ASSERT_EQ(budget.source(), budget_source::caller_limit) << budget.reason();
    EXPECT_EQ(budget.limit(), 4096u * page);
    EXPECT_TRUE(contains(budget.reason(), "set no limit")) << budget.reason();
    EXPECT_EQ(budget.usage(), 250u * page) << "RSS from the fixture's statm";
  }
}

TEST(memory_budget, cgroup_usage_file_is_found_without_a_limit) {
  const auto file = [](const char* fixture) {
    return memory_budget::cgroup_usage_file(at(fixture));
  };
  ASSERT_TRUE(file("v2_unlimited"));
  EXPECT_EQ(*file("v2_unlimited"), at("v2_unlimited").cgroup_root + "/user.slice/memory.current");
  ASSERT_TRUE(file("v1_unlimited"));
  EXPECT_TRUE(contains(*file("v1_unlimited"), "/memory/memory.usage_in_bytes"))
      << *file("v1_unlimited");
  ASSERT_TRUE(file("v2"));
  EXPECT_TRUE(contains(*file("v2"), "memory.current")) << *file("v2");
  for (const char* fixture : {"none", "none_listed", "malformed_v2_current", "malformed_v1_usage"})
    EXPECT_EQ(file(fixture), std::nullopt) << fixture;
}

TEST(memory_budget, no_cgroup_and_no_caller_limit_is_source_none) {
  for (const char* fixture : {"none", "none_listed", "v2_unlimited"}) {
    SCOPED_TRACE(fixture);
    const memory_budget budget = memory_budget::detect(at(fixture));
    EXPECT_EQ(budget.source(), budget_source::none);
    EXPECT_EQ(budget.limit(), memory_budget::unlimited);
    EXPECT_EQ(budget.usage(), std::nullopt);
    EXPECT_TRUE(contains(budget.reason(), "caller limit: none given")) << budget.reason();
    EXPECT_TRUE(contains(budget.reason(), "no source sets a finite limit")) << budget.reason();
  }
  const memory_budget_options none = at("none");
  EXPECT_TRUE(contains(memory_budget::detect(none).reason(),
                       "cgroup v2: cannot read " + none.proc_self + "/cgroup"));
}

TEST(memory_budget, no_cgroup_uses_the_caller_limit_with_rss) {
  const memory_budget_options options = at("none", 1u << 30);
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::caller_limit) << budget.reason();
  EXPECT_EQ(budget.limit(), 1u << 30);
  EXPECT_EQ(budget.hard_limit(), memory_budget::unlimited);
  EXPECT_EQ(budget.cgroup_directory(), "");
  EXPECT_EQ(budget.usage_path(), options.proc_self + "/statm");
  EXPECT_EQ(budget.usage(), 512u * page);
}

struct malformed_case {
  const char* fixture;
  const char* expected_in_reason;  // the bad file and a quote of it
};

class malformed_fixture : public testing::TestWithParam<malformed_case> {};

TEST_P(malformed_fixture, is_skipped_with_the_file_named_in_the_reason) {
  const malformed_case& c = GetParam();
  const memory_budget_options options = at(c.fixture, 123456789u);
  const memory_budget budget = memory_budget::detect(options);
  EXPECT_EQ(budget.source(), budget_source::caller_limit) << budget.reason();
  EXPECT_EQ(budget.limit(), 123456789u);
  EXPECT_TRUE(contains(budget.reason(), c.expected_in_reason)) << budget.reason();
}

INSTANTIATE_TEST_SUITE_P(
    memory_budget, malformed_fixture,
    testing::Values(
        malformed_case{"malformed_v2_max", "svc/memory.max is malformed ('12abc')"},
        malformed_case{"malformed_v2_current", "svc/memory.current is malformed ('')"},
        malformed_case{"malformed_v1_limit", "job/memory.limit_in_bytes is malformed ('-1')"},
        malformed_case{"malformed_v1_usage", "job/memory.usage_in_bytes is malformed ('lots')"},
        malformed_case{"malformed_proc_cgroup", "lists no unified (0::) hierarchy"}),
    [](const testing::TestParamInfo<malformed_case>& param) { return param.param.fixture; });

TEST(memory_budget, malformed_statm_leaves_no_source) {
  const memory_budget budget = memory_budget::detect(at("malformed_statm", 1u << 30));
  EXPECT_EQ(budget.source(), budget_source::none);
  EXPECT_TRUE(contains(budget.reason(), "statm is unreadable or malformed")) << budget.reason();
}

TEST(memory_budget, prefer_caller_limit_puts_the_caller_first) {
  memory_budget_options options = at("v2", 1u << 20);
  options.prefer_caller_limit = true;
  const memory_budget budget = memory_budget::detect(options);
  EXPECT_EQ(budget.source(), budget_source::caller_limit) << budget.reason();
  EXPECT_EQ(budget.limit(), 1u << 20);
  options.caller_limit.reset();
  EXPECT_EQ(memory_budget::detect(options).source(), budget_source::cgroup_v2)
      << "without a caller limit the cgroups are still tried";
}

TEST(memory_budget, usage_reads_the_file_each_time) {
  namespace fs = std::filesystem;
  const fs::path copy =
      fs::temp_directory_path() / ("alloclab_budget_" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(fixtures + "v2_namespace_root", copy, fs::copy_options::recursive);
  memory_budget_options options;
  options.proc_self = (copy / "proc_self").string();
  options.cgroup_root = (copy / "sys_fs_cgroup").string();
  const memory_budget budget = memory_budget::detect(options);
  ASSERT_EQ(budget.source(), budget_source::cgroup_v2) << budget.reason();
  EXPECT_EQ(budget.usage(), 1073741824u);
  std::ofstream(copy / "sys_fs_cgroup" / "memory.current") << "2000000000\n";
  EXPECT_EQ(budget.usage(), 2000000000u);
  std::ofstream(copy / "sys_fs_cgroup" / "memory.current") << "garbage\n";
  EXPECT_EQ(budget.usage(), std::nullopt) << "a malformed sample is not a number";
  fs::remove(copy / "sys_fs_cgroup" / "memory.current");
  EXPECT_EQ(budget.usage(), std::nullopt) << "a vanished file is not a number";
  EXPECT_EQ(budget.limit(), 2147483648u) << "the limit is read once, at detection";
  fs::remove_all(copy);
}

// Every file and directory under `root` with its size and modification time.
std::string tree_snapshot(const std::filesystem::path& root) {
  std::string snapshot;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    snapshot += entry.path().string() + " " +
                std::to_string(entry.is_regular_file() ? entry.file_size() : 0) + " " +
                std::to_string(entry.last_write_time().time_since_epoch().count()) + "\n";
  }
  return snapshot;
}

TEST(memory_budget, detection_only_reads) {
  const std::string before = tree_snapshot(fixtures);
  for (const auto& fixture : std::filesystem::directory_iterator(fixtures)) {
    if (!fixture.is_directory()) continue;
    const memory_budget budget =
        memory_budget::detect(at(fixture.path().filename().string(), 1u << 30));
    (void)budget.usage();
  }
  EXPECT_EQ(tree_snapshot(fixtures), before) << "a fixture file was created or changed";
}

TEST(memory_budget, parses_statm) {
  EXPECT_EQ(memory_budget::resident_bytes_from_statm("765 407 379 5 0 123 0\n"), 407u * page);
  EXPECT_EQ(memory_budget::resident_bytes_from_statm("765 0 0 0 0 0 0"), 0u);
  EXPECT_EQ(memory_budget::resident_bytes_from_statm("765"), std::nullopt);
  EXPECT_EQ(memory_budget::resident_bytes_from_statm("765 -4 1"), std::nullopt);
  EXPECT_EQ(memory_budget::resident_bytes_from_statm(""), std::nullopt);
}

TEST(memory_budget, names_every_source) {
  EXPECT_STREQ(alloclab::to_string(budget_source::cgroup_v2), "cgroup v2");
  EXPECT_STREQ(alloclab::to_string(budget_source::cgroup_v1), "cgroup v1");
  EXPECT_STREQ(alloclab::to_string(budget_source::caller_limit), "caller limit");
  EXPECT_STREQ(alloclab::to_string(budget_source::none), "none");
}

// VmRSS from /proc/self/status: a second reading of RSS through a different file.
std::optional<std::uint64_t> status_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  return std::nullopt;
}

TEST(memory_budget, live_machine_reports_a_consistent_source) {
  memory_budget_options options;
  options.caller_limit = std::uint64_t{1} << 40;
  const memory_budget budget = memory_budget::detect(options);
  std::printf("live: %s: %s\n", alloclab::to_string(budget.source()), budget.reason().c_str());
  ASSERT_NE(budget.source(), budget_source::none) << "a caller limit was given";
  const std::optional<std::uint64_t> usage = budget.usage();
  ASSERT_TRUE(usage.has_value()) << budget.usage_path();
  EXPECT_GT(*usage, 0u);
  if (budget.source() == budget_source::caller_limit) {
    EXPECT_EQ(budget.usage_path(), "/proc/self/statm");
    EXPECT_TRUE(contains(budget.reason(), "cgroup v2: ")) << "why v2 was skipped";
    EXPECT_TRUE(contains(budget.reason(), "cgroup v1: ")) << "why v1 was skipped";
    const std::optional<std::uint64_t> rss = status_rss_bytes();
    ASSERT_TRUE(rss.has_value());
    const std::uint64_t difference = *rss > *usage ? *rss - *usage : *usage - *rss;
    EXPECT_LT(difference, std::uint64_t{16} << 20) << "statm and status disagree on RSS";
  } else {
    EXPECT_LT(budget.limit(), memory_budget::unlimited);
    EXPECT_TRUE(contains(budget.usage_path(), budget.cgroup_directory()));
  }
}

}  // namespace
