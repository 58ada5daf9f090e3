// Test plan: `alloclab compare --paired` (two builds in lockstep, docs/ci-gate.md), driven through
// the built binary. No expectation depends on a timing: only on exit codes, messages, the
// schema and the counts the run must have, whatever it measured.
//   bad input: exit 2, one line                   -> PairedCompare.BadInputIsExitTwoWithOneLine
//   a missing, non-lab or other-protocol binary   -> PairedCompare.RefusesABinaryThatCannotPair
//   a tiny run of this build against a copy of it at another path: a schema-valid results file
//   with paired_builds, each cell with paired_runs, both builds' workers enrolled in the rings,
//   the table naming what a pair is, and `report` rendering the file
//                                                 -> PairedCompare.TinyRunWritesValidResults
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "measure/build_guard.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

class PairedCompare : public binary_test {
 protected:
  // A stand-in binary: a shell script printing `answer` for `__protocol`.
  fs::path fake_build(const std::string& name, const std::string& answer) const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << "#!/bin/sh\necho '" << answer << "'\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
  void expect_bad(const std::string& args, const std::string& text) const {
    const outcome o = run("compare " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << args << ": stderr was\n" << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << args << ": stderr was\n" << o.err;
    EXPECT_TRUE(o.out.empty()) << args;
  }
  std::string both(const std::string& candidate) const {
    return "--paired --baseline-binary " + binary() + " --candidate-binary " + candidate;
  }
};

TEST_F(PairedCompare, BadInputIsExitTwoWithOneLine) {
  const std::string self = binary();
  expect_bad("--paired", "needs --baseline-binary and --candidate-binary");
  expect_bad("--paired --baseline-binary " + self,
             "needs --baseline-binary and --candidate-binary");
  expect_bad("--baseline-binary " + self, "--paired");
  expect_bad("--runs 3", "--paired");
  expect_bad(both(self) + " a.json b.json", "takes no results files");
  expect_bad(both(self) + " --runs 1", "--runs must be 2 to 64");
  expect_bad(both(self) + " --margin 0", "--margin must be more than 0");
  expect_bad(both(self) + " --margin nan", "--margin");
  expect_bad(both(self) + " --budget 0", "--budget must be more than 0");
  expect_bad(both(self) + " --budget soon", "--budget");
  expect_bad(both(self) + " --workloads no_such_workload", "no_such_workload");
  expect_bad(both(self) + " -o " + (dir_ / "out.html").string(), "not HTML");
  expect_bad("a.json", "two results files");
}

TEST_F(PairedCompare, RefusesABinaryThatCannotPair) {
  expect_bad(both((dir_ / "missing").string()), "does not exist");
  expect_bad(both(dir_.string()), "not an executable file");
  expect_bad(both("/bin/true"), "does not say its worker protocol");
  expect_bad(both(fake_build("old", "hello").string()), "does not say its worker protocol");
  expect_bad(both(fake_build("newer", R"({"worker_protocol": 999, "lockstep_protocol": 1,
      "revision": null})")
                      .string()),
             "worker protocol 999");
  const fs::path other = fake_build(
      "other_ring", R"({"worker_protocol": 1, "lockstep_protocol": 7, "revision": "abc"})");
  const outcome o = run("compare --paired --baseline-binary " + other.string() +
                        " --candidate-binary " + binary());
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("--baseline-binary"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("lockstep protocol 7"), std::string::npos) << o.err;
}

TEST_F(PairedCompare, TinyRunWritesValidResults) {
  const fs::path copy = dir_ / "candidate-alloclab-lab";
  fs::copy_file(fs::path(binary()).parent_path() / "alloclab-lab", copy);
  const fs::path out = dir_ / "paired.json";
  const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
  const outcome o = run("compare " + both(copy.string()) +
                        " --workloads vector_push --strategies std,alloclab_arena --budget 5s"
                        " --runs 2 --repetition-time 2 --fail-on-regression 50 -o " +
                        out.string() + allow);
  // 1 only when a decided slowdown beyond 50 % is found: not expected of a copy, but not a timing
  // this test may assert; a failed worker would also be 1, so the cells' status is checked below.
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.out << o.err;
  EXPECT_NE(o.out.find("pair: one cell of both builds in one lockstep ring run"), std::string::npos)
      << o.out;
  const outcome valid = run("validate " + out.string());
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  const outcome report = run("report " + out.string());
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("**A pair** is one cell of both builds"), std::string::npos)
      << report.out;
  const json results = json::parse(read_file(out));
  const json& paired = results.at("paired_builds");
  EXPECT_EQ(paired.at("candidate").at("binary"), copy.string());
  EXPECT_EQ(paired.at("margin"), 0.02);
  ASSERT_EQ(paired.at("cells").size(), 2u);
  for (const json& cell : paired.at("cells")) {
    EXPECT_EQ(cell.at("baseline").at("status"), "ok") << cell.dump();
    EXPECT_EQ(cell.at("candidate").at("status"), "ok") << cell.dump();
    // Both builds' workers took the ring's token: the copy enrolled as this build's workers do.
    EXPECT_GT(cell.at("baseline").at("slices"), 0u) << cell.dump();
    EXPECT_GT(cell.at("candidate").at("slices"), 0u) << cell.dump();
    const json& comparison = cell.at("comparison");
    EXPECT_EQ(comparison.at("kind"), "build");
    EXPECT_EQ(comparison.at("paired_runs"), 2) << "--runs 2: two ring runs, both builds in each";
    EXPECT_GT(comparison.at("value").get<double>(), 0);
  }
  EXPECT_EQ(paired.at("rounds").at(0).at("processes"), 8u) << "2 cells x 2 builds x 2 ring runs";
}

}  // namespace
}  // namespace alloclab::lab
