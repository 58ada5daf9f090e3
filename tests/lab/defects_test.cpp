// Test plan: the defects found by using the lab as a new user would, one test each.
//   1 SIGINT/SIGTERM leave no worker behind and no empty directory (InterruptLeavesNoWorker...)
//   2 --cell-timeout applies per cell (CellTimeoutIsPerCell)
//   3 --cell-timeout nan is bad input (NonNumericTimeoutIsBadInput)
//   4 validate accepts retained_after_purge slightly above 1 (RetentionAboveOneIsValid)
//   5 labels name the real baseline malloc (LabelsNameTheBaselineMalloc)
//   6 progress counts cell processes across the run (ProgressCountsEveryCellProcess)
//   7 a stray comma is named, not read as the next option (StrayCommaIsNamed)
//   8 validate/report on non-results input: exit 2, one line (NonResultsInputIsOneLine)
//   9 report -o onto its own input is refused (ReportRefusesToOverwriteItsInput)
//  10 a failed write to stdout is an error (WriteErrorsAreErrors)
//  11 report -o into a missing directory or onto a directory (ReportDestinationIsChecked)
//  12 a file-size limit fails the run with a clear line, no .tmp left (FileSizeLimitIsReported)
//  13 a run without std explains the missing ratios (RunWithoutStdExplains)
//  14 `latest` as a directory is refused before measuring (LatestDirectoryRefusedFirst)
//  15 legend, integer messages, `help`, no hidden command in errors (SmallCliFixes)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

const std::string tiny_run = " --iterations 20 --repetitions 2";

std::string allow_debug_unless_release() {
  return alloclab::build::optimized && !alloclab::build::assertions && !alloclab::build::sanitized
             ? ""
             : " --allow-debug";
}

class Defects : public binary_test {
 protected:
  void expect_bad_input(const outcome& o, const std::string& text) const {
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("json.exception"), std::string::npos) << o.err;
  }
  fs::path small_run(const std::string& extra = "") const {
    const outcome o = run("run --workloads trade_batch --strategies std,pmr_monotonic" + tiny_run +
                          " --no-placement-check --out " + (dir_ / "r").string() + extra +
                          allow_debug_unless_release());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return dir_ / "r" / "latest" / "results.json";
  }
};

// Processes whose environment carries `marker`.
std::size_t processes_with(const std::string& marker) {
  std::size_t found = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (env.find(marker) != std::string::npos) ++found;
  }
  return found;
}

TEST_F(Defects, InterruptLeavesNoWorkerAndNoEmptyDirectory) {
  // Signal timing against ASan's slow process start-up made this hang once; the release and
  // clang builds run it.
  if (alloclab::build::sanitized) GTEST_SKIP() << "signal timing under AddressSanitizer";
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string marker =
        "ALLOCLAB_TEST_MARKER=" + std::to_string(::getpid()) + "_" + std::to_string(sig);
    const fs::path out = dir_ / ("out" + std::to_string(sig));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::setenv("ALLOCLAB_TEST_MARKER", marker.substr(marker.find('=') + 1).c_str(), 1);
      ::setenv("ALLOCLAB_TEST_WORKER_FAULT", "hang:*", 1);
      ::unsetenv("LD_PRELOAD");
      const std::string out_arg = out.string();
      const std::string bin = hooked_binary();
      ::execl(bin.c_str(), bin.c_str(), "run", "--workloads", "trade_batch", "--strategies", "std",
              "--out", out_arg.c_str(), "--allow-debug", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until a worker hangs (a second process carries the marker), then interrupt. The
    // deadlines are generous: on 2 busy cores a process start can take seconds.
    const auto waited_for = [](const std::function<bool()>& done) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (std::chrono::steady_clock::now() < deadline) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      return false;
    };
    // The hung worker stays; the workload's calibration process before it does not. So a second
    // marked process must be seen on 25 polls in a row (0.5 s).
    int polls_with_worker = 0;
    EXPECT_TRUE(waited_for([&] {
      polls_with_worker = processes_with(marker) >= 2 ? polls_with_worker + 1 : 0;
      return polls_with_worker >= 25;
    })) << "no worker started";
    ::kill(pid, sig);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status)) << "killed by the signal instead of handling it";
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    }
    // The run has exited; its workers must follow (they are killed, not left to the reaper).
    EXPECT_TRUE(waited_for([&] { return processes_with(marker) == 0; }))
        << "a worker outlived the run";
    std::size_t entries = 0;
    if (fs::exists(out))
      for ([[maybe_unused]] const auto& e : fs::directory_iterator(out)) ++entries;
    EXPECT_EQ(entries, 0u) << "an interrupted run left something in " << out;
  }
}

TEST_F(Defects, CellTimeoutIsPerCell) {
  const outcome o =
      run("run --workloads trade_batch,map_int --strategies std --cell-timeout 2" + tiny_run +
              " --no-placement-check --out " + (dir_ / "r").string() + allow_debug_unless_release(),
          "ALLOCLAB_TEST_WORKER_FAULT=hang:map_int/std@glibc");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  for (const auto& w : r.at("workloads")) {
    const json& c = w.at("cells").at(0);
    if (w.at("name") == "trade_batch") {
      EXPECT_EQ(c.at("status"), "ok") << c.at("reason");
    } else {
      EXPECT_EQ(c.at("status"), "failed");
      EXPECT_NE(c.at("reason").get<std::string>().find("timed out"), std::string::npos);
    }
  }
}

TEST_F(Defects, NonNumericTimeoutIsBadInput) {
  for (const char* value : {"nan", "inf", "-1", "abc"})
    expect_bad_input(run(std::string("run --workloads trade_batch --cell-timeout ") + value +
                         " --out " + (dir_ / "r").string()),
                     "--cell-timeout");
  EXPECT_FALSE(fs::exists(dir_ / "r" / "latest"));
}

TEST_F(Defects, RetentionAboveOneIsValid) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "no heap-study cells under ASan";
  const outcome o = run("run --workloads fifo_lognormal" + tiny_run + " --out " +
                        (dir_ / "r").string() + allow_debug_unless_release());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  // RSS can grow during a purge: a heap cell retaining 100.49 % is a measurement, not an error.
  r["workloads"][0]["cells"][0]["memory"]["retained_after_purge"] = 1.0049;
  std::ofstream(dir_ / "edited.json") << r.dump();
  const outcome valid = run("validate " + (dir_ / "edited.json").string());
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  EXPECT_EQ(run("report " + (dir_ / "edited.json").string()).exit_code, 0);
}

// `report` renders the verdicts the run judged; only `--rejudge` judges again, and says so.
TEST_F(Defects, ReportRendersTheStoredVerdictsUnlessAskedToRejudge) {
  const outcome o =
      run("run --workloads trade_batch --strategies std" + tiny_run +
          " --no-placement-check --out " + (dir_ / "r").string() + allow_debug_unless_release());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  json r = json::parse(read_file(dir_ / "r" / "latest" / "results.json"));
  ASSERT_FALSE(r["claims"].empty());
  // What this run could never judge so: a refuted verdict with its own detail.
  r["claims"][0]["verdict"] = "refuted";
  r["claims"][0]["detail"] = "the verdict stored in the file";
  const std::string edited = (dir_ / "edited.json").string();
  std::ofstream(edited) << r.dump();

  const outcome stored = run("report " + edited);
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  EXPECT_NE(stored.out.find("the verdict stored in the file"), std::string::npos) << stored.out;
  EXPECT_EQ(stored.out.find("Re-judged"), std::string::npos);

  const outcome rejudged = run("report --rejudge " + edited);
  ASSERT_EQ(rejudged.exit_code, 0) << rejudged.err;
  EXPECT_EQ(rejudged.out.find("the verdict stored in the file"), std::string::npos);
  EXPECT_NE(rejudged.out.find("> **Re-judged** by `alloclab report --rejudge`"), std::string::npos)
      << rejudged.out;
}

TEST_F(Defects, LabelsNameTheBaselineMalloc) {
  if (alloclab::build::sanitized) GTEST_SKIP() << "only plain glibc under ASan";
  const outcome o =
      run("run --workloads trade_batch --strategies std,pmr_monotonic --malloc "
          "glibc_arena2" +
          tiny_run + " --out " + (dir_ / "r").string() + allow_debug_unless_release());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("speed vs std @ glibc_arena2"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("std @ glibc "), std::string::npos) << o.out;
  const std::string report = read_file(dir_ / "r" / "latest" / "report.md");
  EXPECT_NE(report.find("speed vs std @ glibc_arena2"), std::string::npos);
}

TEST_F(Defects, ProgressCountsEveryCellProcess) {
  const outcome o = run("run --workloads trade_batch,log_lines --strategies std,pmr_monotonic" +
                        tiny_run + " --processes 2 --no-placement-check --out " +
                        (dir_ / "r").string() + allow_debug_unless_release());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // Not a terminal: plain lines, counting 0..8 cell processes (4 cells x 2 processes).
  for (int done = 0; done <= 8; ++done)
    EXPECT_NE(o.err.find("[" + std::to_string(done) + "/8 cell processes"), std::string::npos)
        << done << "\n"
        << o.err;
  EXPECT_NE(o.err.find("ETA"), std::string::npos);
}

TEST_F(Defects, StrayCommaIsNamed) {
  expect_bad_input(run("run --workloads , --strategies std"), "empty name");
  expect_bad_input(run("run --workloads trade_batch --strategies std,"), "empty name");
}

TEST_F(Defects, NonResultsInputIsOneLine) {
  std::ofstream(dir_ / "array.json") << "[1,2,3]";
  std::ofstream(dir_ / "null.json") << "null";
  std::ofstream(dir_ / "huge.json") << "1e400";
  fs::create_directories(dir_ / "a_directory");
  for (const char* command : {"validate ", "report "})
    for (const char* file : {"array.json", "null.json", "huge.json", "a_directory", "missing"}) {
      SCOPED_TRACE(std::string(command) + file);
      expect_bad_input(run(command + (dir_ / file).string()), file);
    }
}

TEST_F(Defects, ReportRefusesToOverwriteItsInput) {
  const fs::path results = small_run();
  const std::string before = read_file(results);
  expect_bad_input(run("report " + results.string() + " -o " + results.string()), "refusing");
  EXPECT_EQ(read_file(results), before);
}

TEST_F(Defects, WriteErrorsAreErrors) {
  const fs::path results = small_run();
  for (const std::string& args :
       {std::string("list"), "report " + results.string(), std::string("help")}) {
    const int status = std::system(
        ("'" + binary() + "' " + args + " >/dev/full 2>" + (dir_ / "err.txt").string()).c_str());
    EXPECT_EQ(WEXITSTATUS(status), 1) << args;
  }
  EXPECT_NE(read_file(dir_ / "err.txt").find("cannot write"), std::string::npos);
}

TEST_F(Defects, ReportDestinationIsChecked) {
  const fs::path results = small_run();
  const outcome missing =
      run("report " + results.string() + " -o " + (dir_ / "no" / "such" / "report.md").string());
  expect_bad_input(missing, "does not exist");
  EXPECT_EQ(missing.err.find(".tmp"), std::string::npos);
  const outcome onto = run("report " + results.string() + " -o " + dir_.string());
  expect_bad_input(onto, "is a directory");
}

TEST_F(Defects, FileSizeLimitIsReported) {
  const std::string command =
      "ulimit -f 4; '" + binary() + "' run --workloads trade_batch --strategies std" + tiny_run +
      " --no-placement-check --out '" + (dir_ / "r").string() + "'" + allow_debug_unless_release() +
      " >/dev/null 2>'" + (dir_ / "err.txt").string() + "'";
  const int status = std::system(("sh -c \"" + command + "\"").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by SIGXFSZ";
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = read_file(dir_ / "err.txt");
  EXPECT_NE(err.find("File too large"), std::string::npos) << err;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "r"))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(Defects, RunWithoutStdExplains) {
  const outcome o =
      run("run --workloads trade_batch --strategies pmr_monotonic" + tiny_run +
          " --no-placement-check --out " + (dir_ / "r").string() + allow_debug_unless_release());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("add std to --strategies"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("std p50"), std::string::npos) << "an empty table: " << o.out;
  EXPECT_NE(read_file(dir_ / "r" / "latest" / "report.md").find("Add `std` to `--strategies`"),
            std::string::npos);
}

TEST_F(Defects, LatestDirectoryRefusedFirst) {
  fs::create_directories(dir_ / "r" / "latest");
  // Refused before measuring: no run directory appears beside `latest`.
  expect_bad_input(run("run --workloads trade_batch --out " + (dir_ / "r").string()),
                   "is a directory");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_ / "r")) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST_F(Defects, SmallCliFixes) {
  const outcome help = run("help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* command : {"\n  run ", "\n  compare ", "\n  record ", "\n  advise "})
    EXPECT_NE(help.out.find(command), std::string::npos) << command << help.out;
  expect_bad_input(run("run --iterations abc"), "not an unsigned integer");
  const outcome unknown = run("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_EQ(unknown.err.find("worker"), std::string::npos) << unknown.err;
  const outcome o =
      run("run --workloads trade_batch --strategies std,pmr_monotonic" + tiny_run +
          " --no-placement-check --out " + (dir_ / "r").string() + allow_debug_unless_release());
  EXPECT_NE(o.out.find("! = "), std::string::npos) << o.out;
}

}  // namespace
}  // namespace alloclab::lab
