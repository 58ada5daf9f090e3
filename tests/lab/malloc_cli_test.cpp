// The process-wide malloc axis through the built `alloclab` binary: preload validation,
// isolation of crashing and hanging workers, missing allocators, and the results document with
// memory figures. Faults and hidden mallocs come from the test-only `alloclab_hooked` binary
// (ALLOCLAB_TEST_WORKER_FAULT, ALLOCLAB_TEST_HIDE_MALLOC; cli_support picks it). No test asserts a
// timing.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mallocs/malloc_table.hpp"
#include "measure/build_guard.hpp"
#include "results/schema_check.hpp"
#include "cli_support.hpp"
#include "model_agreement.hpp"
#include "run_support.hpp"

namespace alloclab::lab {
namespace {
using run_support::allow_debug;
using run_support::sanitized;
namespace fs = std::filesystem;
using json = nlohmann::json;

using namespace cli_support;

bool installed(const char* name) {
  return alloclab::mallocs::installed(*alloclab::mallocs::find_malloc(name));
}

class MallocCli : public binary_test {
 protected:
  // A small heap-study run (results under dir_/results); returns the results document.
  json heap_run(const std::string& args, const std::string& environment, int expected_exit) const {
    const outcome o = run("run --iterations 20 --repetitions 2 --out " +
                              (dir_ / "results").string() + " " + args + allow_debug(),
                          environment);
    EXPECT_EQ(o.exit_code, expected_exit) << args << "\n" << o.err;
    const fs::path file = dir_ / "results" / "latest" / "results.json";
    if (!fs::exists(file)) {
      ADD_FAILURE() << "no results written: " << o.err;
      return json::object();
    }
    const json results = json::parse(read_file(file));
    const auto problems = schema_violations(results, results_schema());
    EXPECT_TRUE(problems.empty()) << problems.front();
    return results;
  }
};

const json& malloc_cell_of(const json& results, const std::string& workload,
                           const std::string& strategy, const std::string& malloc) {
  static const json none = json::object();
  for (const auto& w : results.at("workloads"))
    if (w.at("name") == workload)
      for (const auto& c : w.at("cells"))
        if (c.at("strategy") == strategy && c.at("malloc") == malloc) return c;
  ADD_FAILURE() << "no cell " << workload << " / " << strategy << " @ " << malloc;
  return none;
}

TEST_F(MallocCli, BadPreloadLibrariesAreRejectedWithExit2AndOneLine) {
  const outcome bogus = run("run --malloc /no/such/dir/libnothing.so --workloads fifo_lognormal");
  EXPECT_EQ(bogus.exit_code, 2) << bogus.err;
  EXPECT_EQ(line_count(bogus.err), 1u) << bogus.err;
  EXPECT_NE(bogus.err.find("does not exist"), std::string::npos) << bogus.err;

  // A real shared library that is not an allocator: zlib defines neither malloc nor free.
  if (!alloclab::mallocs::resolve_library("libz.so.1")) GTEST_SKIP() << "libz.so.1 not found";
  const outcome not_malloc = run("run --malloc libz.so.1 --workloads fifo_lognormal");
  EXPECT_EQ(not_malloc.exit_code, 2) << not_malloc.err;
  EXPECT_EQ(line_count(not_malloc.err), 1u) << not_malloc.err;
  EXPECT_NE(not_malloc.err.find("malloc"), std::string::npos) << not_malloc.err;

  const outcome unknown = run("run --malloc ptmalloc3");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("valid mallocs: glibc, glibc_arena2"), std::string::npos)
      << unknown.err;
}

TEST_F(MallocCli, SanitizedBuildsRefuseEverythingButGlibc) {
  if (!sanitized()) GTEST_SKIP() << "only sanitizer builds refuse --malloc";
  for (const char* args :
       {"run --malloc jemalloc --allow-debug", "run --malloc glibc_arena2 --allow-debug",
        "run --workloads fifo_lognormal --allow-debug"}) {
    const outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << args;
    EXPECT_NE(o.err.find("sanitizer build"), std::string::npos) << args << ": " << o.err;
  }
}

TEST_F(MallocCli, ListShowsHeapWorkloadsAndMallocs) {
  const outcome o = run("list");
  ASSERT_EQ(o.exit_code, 0);
  for (const char* name : {"fifo_uniform", "fifo_exponential", "fifo_lognormal", "lifo_uniform",
                           "xthread_lognormal", "strategy axis is n/a", "glibc_trim", "tbbmalloc"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
}

TEST_F(MallocCli, HeapRunCarriesProvenAllocatorsAndMemoryFigures) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc";
  const json r = heap_run("--malloc all --workloads fifo_lognormal,lifo_exponential", "", 0);
  ASSERT_TRUE(r.contains("workloads"));
  EXPECT_EQ(r.at("schema_version"), 6);
  model_agreement::expect_model_agrees(r, "the heap run's results");
  std::size_t measured = 0;
  for (const auto& w : r.at("workloads")) {
    EXPECT_EQ(w.at("kind"), "heap");
    for (const auto& c : w.at("cells")) {
      EXPECT_EQ(c.at("strategy"), "malloc");
      if (c.at("status") == "not_installed") continue;
      ASSERT_EQ(c.at("status"), "ok")
          << w.at("name") << " @ " << c.at("malloc") << ": " << c.at("reason");
      ++measured;
      const json& live = c.at("live_allocator");
      EXPECT_TRUE(live.at("ok").get<bool>());
      const auto* entry = alloclab::mallocs::find_malloc(c.at("malloc").get<std::string>());
      ASSERT_NE(entry, nullptr);
      EXPECT_NE(
          live.at("malloc_owner_path").get<std::string>().find(std::string(entry->malloc_owner)),
          std::string::npos);
      const json& m = c.at("memory");
      const auto peak = m.at("peak_rss_bytes").get<double>();
      const auto live_bytes = m.at("peak_live_bytes").get<double>();
      EXPECT_GT(live_bytes, 0);
      EXPECT_GE(peak, m.at("rss_after_free_bytes").get<double>());
      EXPECT_GT(m.at("fragmentation").get<double>(), 0);  // median over processes of peak/live
      // newlib-nano's malloc has no trim entry point (docs/heap-study.md): nothing to purge.
      if (c.at("malloc") != "newlib_nano") {
        EXPECT_TRUE(m.at("purge").at("available").get<bool>()) << c.at("malloc");
      }
      for (const char* figure :
           {"after_free_0ms", "after_free_100ms", "after_free_1s", "after_purge"})
        EXPECT_TRUE(m.at("retention").at(figure).is_number()) << c.at("malloc") << " " << figure;
      const json& series = m.at("rss_series");
      EXPECT_GE(series.at("t_ms").size(), 2u) << c.at("malloc");
      EXPECT_EQ(series.at("rss_bytes").size(), series.at("t_ms").size());
      EXPECT_GE(series.at("purge_ms").get<double>() - series.at("last_free_ms").get<double>(),
                1000.0)
          << "the purge follows the 1 s reading";
      EXPECT_GE(series.at("t_ms").back().get<double>(), series.at("purge_ms").get<double>());
      EXPECT_EQ(c.at("ns_per_pair").at("per_repetition").size(), 2u);
      EXPECT_EQ(c.at("timing").at("samples"), 40);
    }
  }
  EXPECT_GE(measured, 6u);  // the three glibc variants at least, on two workloads
  const std::string report = read_file(dir_ / "results" / "latest" / "report.md");
  for (const char* section : {"Seed 003's figure", "### fifo_lognormal", "### Memory", "dlmalloc",
                              "### Retention over time"})
    EXPECT_NE(report.find(section), std::string::npos) << section;
}

TEST_F(MallocCli, CrashingAndHangingWorkersBecomeFailedRowsAndEverythingElseIsKept) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc: no workers in sanitizer builds";
  const json crashed = heap_run("--malloc glibc --workloads fifo_uniform,fifo_lognormal",
                                "ALLOCLAB_TEST_WORKER_FAULT=abort:fifo_lognormal/glibc", 1);
  EXPECT_EQ(malloc_cell_of(crashed, "fifo_uniform", "malloc", "glibc").at("status"), "ok");
  const json& dead = malloc_cell_of(crashed, "fifo_lognormal", "malloc", "glibc");
  EXPECT_EQ(dead.at("status"), "failed");
  EXPECT_NE(dead.at("reason").get<std::string>().find("SIGABRT"), std::string::npos)
      << dead.at("reason");
  EXPECT_NE(dead.at("worker").at("stderr_tail").get<std::string>().find("test fault"),
            std::string::npos);
  EXPECT_TRUE(dead.at("timing").is_null());
  EXPECT_NE(
      read_file(dir_ / "results" / "latest" / "report.md").find("## Failed and refused cells"),
      std::string::npos);

  const json hung =
      heap_run("--malloc glibc --workloads fifo_uniform,fifo_lognormal --cell-timeout 4",
               "ALLOCLAB_TEST_WORKER_FAULT=hang:fifo_lognormal/glibc", 1);
  EXPECT_EQ(malloc_cell_of(hung, "fifo_uniform", "malloc", "glibc").at("status"), "ok");
  const json& stuck = malloc_cell_of(hung, "fifo_lognormal", "malloc", "glibc");
  EXPECT_EQ(stuck.at("status"), "failed");
  EXPECT_TRUE(stuck.at("worker").at("timed_out").get<bool>());
  EXPECT_NE(stuck.at("reason").get<std::string>().find("timed out"), std::string::npos)
      << stuck.at("reason");
}

TEST_F(MallocCli, LabWorkloadsRunUnderAnotherMallocInAProvenWorker) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc";
  const std::string other = installed("mimalloc") ? "mimalloc" : "glibc_arena2";
  const json r = heap_run(
      "--workloads trade_batch,log_lines --strategies std,pmr_monotonic --malloc glibc," + other,
      "ALLOCLAB_TEST_WORKER_FAULT=abort:log_lines/" + other, 1);
  for (const char* strategy : {"std", "pmr_monotonic"}) {
    EXPECT_EQ(malloc_cell_of(r, "trade_batch", strategy, "glibc").at("status"), "ok");
    const json& c = malloc_cell_of(r, "trade_batch", strategy, other);
    ASSERT_EQ(c.at("status"), "ok") << c.at("reason");
    EXPECT_TRUE(c.at("live_allocator").at("ok").get<bool>());
    EXPECT_FALSE(c.at("vs_std").is_null());  // compared with std @ glibc
    EXPECT_EQ(malloc_cell_of(r, "log_lines", strategy, "glibc").at("status"), "ok");
    EXPECT_EQ(malloc_cell_of(r, "log_lines", strategy, other).at("status"), "failed");
  }
  // Asked directly, a worker that is not under the preload refuses to measure.
  if (other == "mimalloc") {
    const json task = {{"mode", "measure"},
                       {"workload", "trade_batch"},
                       {"strategy", "std"},
                       {"malloc", "mimalloc"},
                       {"part", 0},
                       {"samples", 5},
                       {"repetitions", 2},
                       {"counted_iterations", 2},
                       {"seed", 1},
                       {"order_seed", 1},
                       {"batch_size", 1},
                       {"quick", false},
                       {"allow_debug", !current_build().benchmark_ready()}};
    const outcome refused = run("__cell '" + task.dump() + "'");
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    const json doc = json::parse(refused.out);
    EXPECT_FALSE(doc.at("measured").get<bool>());
    EXPECT_FALSE(doc.contains("record"));
  }
}

TEST_F(MallocCli, MissingAllocatorGivesARowAndFailsUnlessSkipped) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc";
  const std::string hide = "ALLOCLAB_TEST_HIDE_MALLOC=jemalloc";
  const json failed = heap_run("--malloc glibc,jemalloc --workloads fifo_lognormal", hide, 1);
  const json& row = malloc_cell_of(failed, "fifo_lognormal", "malloc", "jemalloc");
  EXPECT_EQ(row.at("status"), "not_installed");
  EXPECT_NE(row.at("reason").get<std::string>().find("not installed"), std::string::npos);
  EXPECT_EQ(malloc_cell_of(failed, "fifo_lognormal", "malloc", "glibc").at("status"), "ok");

  const json skipped =
      heap_run("--malloc glibc,jemalloc --skip-missing --workloads fifo_lognormal", hide, 0);
  EXPECT_EQ(malloc_cell_of(skipped, "fifo_lognormal", "malloc", "jemalloc").at("status"),
            "not_installed");
  bool warned = false;
  for (const auto& w : skipped.at("warnings"))
    warned = warned || w.get<std::string>().find("not_installed") != std::string::npos;
  EXPECT_TRUE(warned) << "a skipped allocator is never silent";

  // "all" means every installed one: the missing one is shown, but does not fail the run.
  const json all = heap_run("--malloc all --workloads fifo_lognormal", hide, 0);
  EXPECT_EQ(malloc_cell_of(all, "fifo_lognormal", "malloc", "jemalloc").at("status"),
            "not_installed");
}

TEST_F(MallocCli, CustomPreloadLibraryRunsAsItsOwnMalloc) {
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc";
  const auto path = alloclab::mallocs::resolve_library("libjemalloc.so.2");
  if (!path) GTEST_SKIP() << "libjemalloc2 not installed";
  const json r = heap_run("--malloc " + *path + " --workloads fifo_lognormal", "", 0);
  const json& c = malloc_cell_of(r, "fifo_lognormal", "malloc", "custom:libjemalloc.so.2");
  ASSERT_EQ(c.at("status"), "ok") << c.at("reason");
  EXPECT_TRUE(c.at("live_allocator").at("ok").get<bool>());
  EXPECT_EQ(c.at("live_allocator").at("expected"), "custom");
}

}  // namespace
}  // namespace alloclab::lab
