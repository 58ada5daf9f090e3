// Drives the built `alloclab` binary: bad input, the debug-build refusal, and the --quick smoke run.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "measure/build_guard.hpp"
#include "results/schema_check.hpp"
#include "cli_support.hpp"
#include "model_agreement.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

using namespace cli_support;

class Cli : public binary_test {
 protected:
  void expect_usage_error(const std::string& args, const std::string& expected_text) const {
    const outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << args << ": stderr was\n" << o.err;
    EXPECT_NE(o.err.find(expected_text), std::string::npos) << args << ": stderr was\n" << o.err;
  }
};

TEST_F(Cli, UnknownNamesListTheValidOnes) {
  expect_usage_error("run --workloads vector_push,nope", "valid workloads: vector_push,");
  expect_usage_error("run --strategies std,bogus", "valid strategies: std,");
}

TEST_F(Cli, BadNumbersAreRejected) {
  expect_usage_error("run --iterations abc", "--iterations");
  expect_usage_error("run --iterations 0", "--iterations");
  expect_usage_error("run --iterations -5", "--iterations");
  expect_usage_error("run --repetitions 1001", "--repetitions");
  expect_usage_error("run --repetitions 2.5", "--repetitions");
  expect_usage_error("run --seed -3", "--seed");
  expect_usage_error("run --seed 123456789012345678901234567890", "--seed");
  expect_usage_error("run --seed twelve", "--seed");
  expect_usage_error("run --processes 0", "--processes");
  expect_usage_error("run --processes 65", "--processes");
}

TEST_F(Cli, UnwritableOutIsRejectedBeforeMeasuring) {
  std::ofstream(dir_ / "a_file") << "x";
  expect_usage_error("run --quick --out " + (dir_ / "a_file").string(), "not writable");
  expect_usage_error("run --quick --out " + (dir_ / "a_file" / "below").string(), "not writable");
}

TEST_F(Cli, UnknownCommandsAndOptions) {
  expect_usage_error("frobnicate", "unknown command 'frobnicate'");
  expect_usage_error("run --bogus", "--bogus");
  expect_usage_error("", "subcommand");
}

TEST_F(Cli, ListNamesEveryWorkloadAndStrategy) {
  const outcome o = run("list");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* name : {"vector_push", "log_lines", "request_mix", "std",
                           "pmr_monotonic_undersized", "alloclab_arena_static"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
}

TEST_F(Cli, DebugBuildIsRefusedUnlessAllowedAndThenStamped) {
  const std::string args =
      "run --workloads trade_batch --strategies std,pmr_monotonic --iterations 5 "
      "--repetitions 2 --out " +
      (dir_ / "results").string();
  const outcome refused = run(args, "ALLOCLAB_TEST_PRETEND_DEBUG=1");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(line_count(refused.err), 1u) << refused.err;
  EXPECT_NE(refused.err.find("--allow-debug"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "results" / "latest"));

  const outcome allowed = run(args + " --allow-debug", "ALLOCLAB_TEST_PRETEND_DEBUG=1");
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("DEBUG"), std::string::npos);
  const json results = json::parse(read_file(dir_ / "results" / "latest" / "results.json"));
  EXPECT_TRUE(results.at("debug_build").get<bool>());
  EXPECT_EQ(read_file(dir_ / "results" / "latest" / "report.md").rfind("# DEBUG", 0), 0u);
}

TEST_F(Cli, QuickRunProducesSchemaValidResultsWithHeapFreeArenas) {
  const fs::path root = dir_ / "results";
  // Debug and sanitizer builds may still smoke-test the pipeline, stamped DEBUG. Under the
  // sanitizers every cell still runs, in one process of two short repetitions: the point there
  // is that each workload x strategy runs clean, not its timing (this was the test command's
  // longest test, 460 s under ASan).
  const bool debug = !current_build().benchmark_ready();
  const std::string sanitized_plan = " --processes 1 --repetitions 2 --iterations 20";
  // The twin is forced: whether this CPU has memmove's copy cliff must not decide what is tested.
  const outcome o =
      run("run --quick --placement-check always --out " + root.string() +
          (debug ? " --allow-debug" : "") + (alloclab::build::sanitized ? sanitized_plan : ""));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ASSERT_TRUE(fs::is_symlink(root / "latest"));
  EXPECT_NE(o.out.find("report: "), std::string::npos);

  const json results = json::parse(read_file(root / "latest" / "results.json"));
  const auto problems = schema_violations(results, results_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
  model_agreement::expect_model_agrees(results, "the --quick run's results");
  EXPECT_EQ(results.at("debug_build").get<bool>(), debug);

  const auto& strategies = results.at("config").at("strategies");
  const bool twin = !results.at("config").at("placement_twin").is_null();
  EXPECT_EQ(twin, !alloclab::build::sanitized);    // ASan owns malloc: no glibc tuning variant
  EXPECT_EQ(results.at("workloads").size(), 14u);  // the seeds' 12 and the two multithreaded ones
  for (const auto& w : results.at("workloads")) {
    ASSERT_EQ(w.at("cells").size(), strategies.size() * (twin ? 2 : 1)) << w.at("name");
    if (twin) {
      EXPECT_TRUE(w.at("placement").is_object()) << w.at("name");
    }
    for (const auto& c : w.at("cells")) {
      const std::string strategy = c.at("strategy");
      if (c.at("status") == "not_applicable") continue;
      EXPECT_EQ(c.at("status"), "ok") << w.at("name") << "/" << strategy << ": " << c.at("reason");
      EXPECT_FALSE(c.at("timing").is_null()) << w.at("name") << "/" << strategy;
      const bool arena = strategy == "pmr_monotonic" || strategy == "pmr_monotonic_over_pool" ||
                         strategy.rfind("alloclab_", 0) == 0;
      // The multithreaded workloads start a thread every iteration, and the concurrent pool
      // registers each new thread that allocates (one operator new: its thread registry entry).
      const double per_new_thread =
          strategy == "alloclab_concurrent_multipool" && w.at("name") == "request_mix_mt" ? 1.0
                                                                                          : 0.0;
      if (arena) {
        EXPECT_EQ(c.at("heap").at("allocations_per_iteration"), per_new_thread)
            << w.at("name") << "/" << strategy;
      }
    }
  }
  EXPECT_GE(results.at("claims").size(), 15u);
  // The default run measures no heap workload; their claims say how to measure them.
  for (const auto& c : results.at("claims")) {
    if (c.at("id") != "003-uniform-costliest" &&
        c.at("id") != "004-glibc-keeps-jemalloc-mimalloc-return")
      continue;
    EXPECT_EQ(c.at("verdict"), "not measured in this run") << c.at("id");
    EXPECT_NE(c.at("detail").get<std::string>().find("--malloc all --workloads fifo_"),
              std::string::npos);
  }

  // The report is a pure function of the results file.
  const outcome rerendered = run("report " + (root / "latest" / "results.json").string());
  ASSERT_EQ(rerendered.exit_code, 0) << rerendered.err;
  EXPECT_EQ(rerendered.out, read_file(root / "latest" / "report.md"));
  EXPECT_NE(rerendered.out.find("## Seed claims"), std::string::npos);

  EXPECT_EQ(run("validate " + (root / "latest" / "results.json").string()).exit_code, 0);
}

TEST_F(Cli, RepetitionsSpreadOverProcessesAreAllReported) {
  const fs::path root = dir_ / "results";
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const outcome o =
      run("run --workloads trade_batch --strategies std,alloclab_arena --iterations 50 "
          "--repetitions 5 --processes 3 --out " +
          root.string() + allow);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json results = json::parse(read_file(root / "latest" / "results.json"));
  EXPECT_EQ(results.at("config").at("processes"), 3);
  for (const auto& c : results.at("workloads").at(0).at("cells")) {
    EXPECT_EQ(c.at("timing").at("repetition_medians_ns").size(), 5u) << c.at("strategy");
    EXPECT_EQ(c.at("heap").at("allocations_per_iteration"), c.at("strategy") == "std" ? 1 : 0);
  }
  EXPECT_NE(read_file(root / "latest" / "report.md").find("spread over 3 processes"),
            std::string::npos);
}

TEST_F(Cli, ValidateRejectsABrokenResultsFile) {
  std::ofstream(dir_ / "broken.json") << R"({"schema": "alloclab-results", "schema_version": 6})";
  const outcome o = run("validate " + (dir_ / "broken.json").string());
  EXPECT_EQ(o.exit_code, 2);  // bad input, as for `report` given the same file
  EXPECT_EQ(line_count(o.err), 1u) << o.err;
  EXPECT_NE(o.out.find("missing required key"), std::string::npos);
}

TEST_F(Cli, ValidateNamesAnOlderSchemaVersionInOneLine) {
  std::ofstream(dir_ / "old.json") << R"({"schema": "alloclab-results", "schema_version": 1})";
  const outcome o = run("validate " + (dir_ / "old.json").string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(line_count(o.out), 1u) << o.out;
  EXPECT_NE(o.out.find("schema_version is 1"), std::string::npos) << o.out;
}

TEST_F(Cli, ACellWorkerPrintsOneRecordAsJson) {
  const json task = {{"mode", "measure"},
                     {"workload", "trade_batch"},
                     {"strategy", "pmr_monotonic"},
                     {"malloc", "glibc"},
                     {"part", 1},
                     {"samples", 5},
                     {"repetitions", 2},
                     {"counted_iterations", 4},
                     {"seed", 42},
                     {"order_seed", 43},
                     {"batch_size", 3},
                     {"quick", false},
                     {"allow_debug", !current_build().benchmark_ready()}};
  const outcome o = run("__cell '" + task.dump() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json document = json::parse(o.out);
  EXPECT_TRUE(document.at("measured").get<bool>());
  EXPECT_TRUE(document.contains("live_allocator"));
  const json& record = document.at("result");  // every frame's worker answers under "result"
  EXPECT_EQ(record.at("strategy"), "pmr_monotonic");
  EXPECT_EQ(record.at("part"), 1);
  EXPECT_EQ(record.at("batch").at("batch_size"), 3);
  EXPECT_EQ(record.at("batch").at("cell").at("repetition_medians_ns").size(), 2u);
  EXPECT_NE(run("__cell '{\"mode\": \"measure\"}'").exit_code, 0);
}

}  // namespace
}  // namespace alloclab::lab
