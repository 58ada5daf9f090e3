// Test plan: the memory frame, from plan rows to the report.
//   plan rows: --frames memory with no memory workload named runs them all; budget_bursts under
//     every malloc x {no_watcher, budget_trim}, huge_table under the first malloc only; a memory
//     workload implies the frame; one no chosen frame measures is refused
//     (MemoryFramePlan.RowsAndFrames).
//   budget: --memory-budget, else the cgroup limit, else the default; byte counts with suffixes
//     and refused garbage (MemoryFramePlan.BudgetComesFromTheOptionTheCgroupOrTheDefault,
//     MemoryFramePlan.ByteCountsAreParsedOrRefused).
//   end to end: `run --quick --frames memory` is schema-valid, every cell measured, the default
//     budget is crossed and the watcher's events are recorded, the huge-page cell says what backed
//     it and dTLB misses are a number or "not available" (MemoryFrameRun.QuickRunRecordsBudget
//     EventsAndHugePageCoverage).
//   time over the soft threshold from a series (MemoryFrameBudget.TimeOverTheThresholdCounts
//     EachPointUntilTheNext).
//   huge pages advised under THP always and madvise, a fallback said under never or no THP, from
//     fixtures whatever this host's THP mode (MemoryFrameHugeTable.BothBranchesOnAnyHost).
//   bad input: --memory-budget 0 / garbage, --huge-table-bytes too small: exit 2 and one line
//     (MemoryFrameRun.BadSizesAreOneLineAndExitTwo).
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>
#include <alloclab/memory_budget.hpp>

#include "cli_support.hpp"
#include "model_agreement.hpp"
#include "frames/memory/budget_service.hpp"
#include "frames/memory/huge_table.hpp"
#include "measure/build_guard.hpp"
#include "frames/memory/memory_workloads.hpp"
#include "plan/plan.hpp"
#include "frames/memory/run_options.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using namespace cli_support;

run_request memory_request(std::vector<std::string> workloads, std::vector<std::string> frames) {
  run_request r;
  r.workloads = std::move(workloads);
  r.frames = std::move(frames);
  r.placement_check = placement_check_mode::never;
  return r;
}

std::size_t cells_of(const run_plan& plan, const std::string& workload) {
  return static_cast<std::size_t>(
      std::count_if(plan.cells.begin(), plan.cells.end(),
                    [&](const cell_spec& c) { return c.workload == workload; }));
}

TEST(MemoryFramePlan, RowsAndFrames) {
  run_request all = memory_request({}, {"memory"});
  all.mallocs = {"glibc", "glibc_arena2"};
  const run_plan plan = make_plan(all, false);
  EXPECT_EQ(plan.frames, std::vector<frame>{frame::memory});
  EXPECT_EQ(plan.workloads.memory, (std::vector<std::string>{"budget_bursts", "huge_table"}));
  EXPECT_TRUE(plan.workloads.lab.empty());
  EXPECT_EQ(cells_of(plan, "budget_bursts"), 4u);  // 2 mallocs x {no_watcher, budget_trim}
  EXPECT_EQ(cells_of(plan, "huge_table"), 2u);     // first malloc x {plain_pages, huge_pages}
  for (const cell_spec& c : plan.cells) {
    EXPECT_EQ(c.frame, frame::memory);
    if (c.workload == "huge_table") {
      EXPECT_EQ(c.malloc.label, "glibc");
    }
  }
  EXPECT_EQ(plan.cells[0].strategy, "no_watcher");
  EXPECT_EQ(plan.cells[1].strategy, "budget_trim");
  EXPECT_EQ(memory_sizes_of(plan).repetitions, memory_default_repetitions);
  EXPECT_EQ(plan.schedule.size(), plan.cells.size() * default_processes);
  EXPECT_EQ(frame_from_string("memory"), frame::memory);

  const run_plan implied = make_plan(memory_request({"budget_bursts"}, {}), false);
  EXPECT_EQ(implied.frames, std::vector<frame>{frame::memory});
  EXPECT_EQ(implied.workloads.memory, std::vector<std::string>{"budget_bursts"});
  EXPECT_EQ(split_workloads({"huge_table", "trade_batch"}).memory,
            std::vector<std::string>{"huge_table"});

  EXPECT_THROW(make_plan(memory_request({"budget_bursts"}, {"batch"}), false), usage_error);
  // The default suite stays the lab workloads only.
  EXPECT_TRUE(make_plan(memory_request({}, {}), false).workloads.memory.empty());
}

TEST(MemoryFramePlan, BudgetComesFromTheOptionTheCgroupOrTheDefault) {
  run_request given = memory_request({"budget_bursts"}, {});
  given.frame_options.slot<memory_run_options>("memory").memory_budget = "96M";
  const run_plan with = make_plan(given, false);
  EXPECT_EQ(memory_sizes_of(with).budget.bytes, std::uint64_t{96} << 20);
  EXPECT_EQ(memory_sizes_of(with).budget.source, "--memory-budget");
  EXPECT_FALSE(memory_sizes_of(with).budget.from_cgroup);

  // Both sides of the cgroup branch, from fixtures, whatever cgroup this test runs in.
  run_request quick = memory_request({"budget_bursts"}, {});
  quick.quick = true;
  const auto fixture = [](const char* name) {
    const std::string root = std::string(ALLOCLAB_TEST_DATA) + "/cgroup/" + name;
    host_view host;
    host.cgroup.proc_self = root + "/proc_self";
    host.cgroup.cgroup_root = root + "/sys_fs_cgroup";
    return host;
  };
  const memory_budget limited = memory_budget::detect(fixture("v2").cgroup);
  ASSERT_EQ(limited.source(), budget_source::cgroup_v2);
  const run_plan in_cgroup = make_plan(quick, false, fixture("v2"));
  EXPECT_TRUE(memory_sizes_of(in_cgroup).budget.from_cgroup);
  EXPECT_EQ(memory_sizes_of(in_cgroup).budget.bytes, limited.limit());
  for (const char* none : {"none", "v2_unlimited", "v1_unlimited"}) {
    const run_plan unlimited = make_plan(quick, false, fixture(none));
    EXPECT_FALSE(memory_sizes_of(unlimited).budget.from_cgroup) << none;
    EXPECT_EQ(memory_sizes_of(unlimited).budget.bytes, quick_memory_budget_bytes) << none;
  }
  const run_plan plan = make_plan(quick, false, fixture("none"));
  EXPECT_EQ(memory_sizes_of(plan).huge_table_bytes, quick_huge_table_bytes);
  EXPECT_EQ(memory_sizes_of(plan).repetitions, memory_quick_repetitions);

  run_request zero = memory_request({"budget_bursts"}, {});
  zero.frame_options.slot<memory_run_options>("memory").memory_budget = "0";
  EXPECT_THROW(make_plan(zero, false), usage_error);
  run_request tiny_table = memory_request({"huge_table"}, {});
  tiny_table.frame_options.slot<memory_run_options>("memory").huge_table_bytes = "1M";
  EXPECT_THROW(make_plan(tiny_table, false), usage_error);
}

TEST(MemoryFramePlan, ByteCountsAreParsedOrRefused) {
  EXPECT_EQ(parse_byte_count("268435456", "--x"), 268435456u);
  EXPECT_EQ(parse_byte_count("1K", "--x"), 1024u);
  EXPECT_EQ(parse_byte_count("3MiB", "--x"), std::uint64_t{3} << 20);
  EXPECT_EQ(parse_byte_count("2G", "--x"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_count("1T", "--x"), std::uint64_t{1} << 40);
  for (const char* bad :
       {"", "abc", "12Q", "-5", "1.5G", "5 M", "M", "99999999999999999999", "2000T", "1KB"})
    EXPECT_THROW(parse_byte_count(bad, "--x"), usage_error) << bad;
}

TEST(MemoryFrameBudget, TimeOverTheThresholdCountsEachPointUntilTheNext) {
  process::rss_series s;
  // t_ms, rss, cgroup
  s.points = {{0, 50, 10}, {10, 95, 10}, {20, 99, 95}, {30, 80, 95}, {40, 91, -1}, {50, 91, -1}};
  EXPECT_DOUBLE_EQ(ms_at_or_above(s, false, 90, 0, 50), 30);   // 10-20, 20-30, 40-50
  EXPECT_DOUBLE_EQ(ms_at_or_above(s, false, 90, 15, 45), 20);  // 15-20, 20-30, 40-45
  EXPECT_DOUBLE_EQ(ms_at_or_above(s, true, 90, 0, 50), 20);    // 20-40; unreadable is not over
  EXPECT_DOUBLE_EQ(ms_at_or_above(s, false, 100, 0, 50), 0);
  EXPECT_DOUBLE_EQ(ms_at_or_above(process::rss_series{}, false, 0, 0, 50), 0);
}

class MemoryFrameRun : public binary_test {};

const json& workload_named(const json& results, const std::string& name) {
  for (const auto& w : results.at("workloads"))
    if (w.at("name") == name) return w;
  throw std::runtime_error("no workload " + name);
}

TEST_F(MemoryFrameRun, QuickRunRecordsBudgetEventsAndHugePageCoverage) {
  // Under AddressSanitizer a process starts at ~200 MiB RSS (shadow memory): above the quick
  // default budget, so the budget leaves room above it there.
  const std::string budget_option = alloclab::build::sanitized ? " --memory-budget 384M" : "";
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const outcome o =
      run("run --quick --frames memory --out " + (dir_ / "r").string() + budget_option + allow);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const fs::path results = dir_ / "r" / "latest" / "results.json";
  const outcome valid = run("validate " + results.string());
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  const json r = json::parse(read_file(results));
  ASSERT_EQ(r.at("workloads").size(), 2u);
  model_agreement::expect_model_agrees(r, "the memory frame's results");
  EXPECT_TRUE(r.at("frames").contains("memory"));

  const json& budget = workload_named(r, "budget_bursts");
  EXPECT_EQ(budget.at("kind"), "memory");
  ASSERT_EQ(budget.at("cells").size(), 2u);
  for (const auto& cell : budget.at("cells")) {
    ASSERT_EQ(cell.at("status"), "ok") << cell.dump();
    const json& b = cell.at("memory_frame").at("budget");
    // The default budget is one the workload crosses: it grows to 90-105 % of the room.
    EXPECT_GE(b.at("peak_fraction").get<double>(), 0.9) << b.dump();
    EXPECT_GT(b.at("time_over_soft_share").get<double>(), 0.0);
    EXPECT_FALSE(cell.at("memory_frame").at("rss_series").at("t_ms").empty());
    if (cell.at("strategy") == "no_watcher") {
      EXPECT_FALSE(b.at("watcher").get<bool>());
      EXPECT_TRUE(b.at("events").empty());
      continue;
    }
    EXPECT_TRUE(b.at("watcher").get<bool>());
    EXPECT_GT(b.at("crossings").get<std::size_t>(), 0u);
    ASSERT_FALSE(b.at("events").empty());
    double previous = 0;
    bool went_up = false;
    for (const auto& e : b.at("events")) {
      EXPECT_GE(e.at("t_ms").get<double>(), previous);
      previous = e.at("t_ms");
      went_up = went_up || (e.at("kind") == "crossing" && e.at("to") != "normal");
    }
    EXPECT_TRUE(went_up);
    EXPECT_FALSE(cell.at("memory_frame").at("vs_first_strategy").at("throughput_ratio").is_null());
  }

  const json& table = workload_named(r, "huge_table");
  ASSERT_EQ(table.at("cells").size(), 2u);
  for (const auto& cell : table.at("cells")) {
    ASSERT_EQ(cell.at("status"), "ok") << cell.dump();
    const json& h = cell.at("memory_frame").at("huge_pages");
    if (h.at("dtlb_load_misses").is_null()) {
      EXPECT_EQ(h.at("dtlb_load_misses_note").get<std::string>().rfind("not available", 0), 0u);
    }
    if (cell.at("strategy") == "plain_pages") {
      EXPECT_FALSE(h.at("advised").get<bool>());
      EXPECT_EQ(h.at("huge_backed_bytes"), 0);
    } else {
      const std::string mode = h.at("thp_mode");
      const bool thp = mode == "always" || mode == "madvise";
      EXPECT_EQ(h.at("advised").get<bool>(), thp);
      EXPECT_EQ(h.at("fell_back").get<bool>(), !thp);
      if (!thp) {
        EXPECT_EQ(h.at("backing").get<std::string>().rfind("FELL BACK", 0), 0u);
      }
    }
  }
  const std::string report = read_file(dir_ / "r" / "latest" / "report.md");
  EXPECT_NE(report.find("## Memory frame"), std::string::npos);
  EXPECT_NE(report.find("What the watcher did"), std::string::npos);
  EXPECT_NE(report.find("dTLB load misses"), std::string::npos);
}

TEST(MemoryFrameHugeTable, BothBranchesOnAnyHost) {
  memory_spec spec;
  spec.workload = "huge_table";
  spec.table_bytes = std::size_t{4} << 20;
  for (const char* mode : {"always", "madvise", "never", "no_choice", "absent"}) {
    huge_page_options host;
    host.thp_enabled_path = std::string(ALLOCLAB_TEST_DATA) + "/thp/" + mode;
    const bool thp = std::string(mode) == "always" || std::string(mode) == "madvise";
    std::string how;
    spec.strategy = "huge_pages";
    const huge_page_buffer advised = make_huge_table(spec, how, host);
    EXPECT_EQ(advised.advised(), thp) << mode;
    EXPECT_EQ(how.rfind(thp ? "huge_page_buffer, MADV_HUGEPAGE" : "FELL BACK", 0), 0u)
        << mode << ": " << how;
    spec.strategy = "plain_pages";
    const huge_page_buffer plain = make_huge_table(spec, how, host);
    EXPECT_FALSE(plain.advised()) << mode;
    EXPECT_EQ(how.rfind("plain pages", 0), 0u) << mode << ": " << how;
  }
}

TEST_F(MemoryFrameRun, BadSizesAreOneLineAndExitTwo) {
  for (const std::string bad : {"--memory-budget 0", "--memory-budget lots", "--memory-budget 12Q",
                                "--huge-table-bytes 1"}) {
    const outcome o = run("run --quick --frames memory " + bad + " --out " + (dir_ / "r").string());
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_EQ(line_count(o.err), 1u) << bad << ": " << o.err;
    EXPECT_FALSE(fs::exists(dir_ / "r")) << bad;
  }
}

}  // namespace
}  // namespace alloclab::lab
