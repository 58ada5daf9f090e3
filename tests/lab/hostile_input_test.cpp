// Test plan: what trying every command with hostile input found (issue 41), one test each; each
// failed before its fix. Bad input is exit 2 and one line; outputs go where they are asked.
//   advise --noise-floor nan, inf, -1, 101 are refused       -> HostileInput.NoiseFloorMustBeFinite
//   every command that says "pass --wait" takes --wait        -> HostileInput.ReplayAndAdviseTakeWait
//   load --url "not a url" is refused before any load          -> HostileInput.LoadRefusesANonUrl
//   report -o /dev/stdout into a pipe prints the report        -> HostileInput.ReportToStdoutInAPipe
//   compare -o x.HTML writes HTML (any case)                   -> HostileInput.CompareHtmlByAnyCase
//   the versions `schema` describes are the ones validate takes -> HostileInput.SchemaAndValidateAgree
//   timings no run can measure (1e300 ns) do not validate      -> HostileInput.AbsurdTimingsAreRefused
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "model/document.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

class HostileInput : public binary_test {
 protected:
  void expect_refused(const std::string& args, const std::string& says) {
    const outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << args << "\n" << o.err;
  }
  fs::path trace() const { return fs::path(ALLOCLAB_TEST_DATA) / "python3_json.trace"; }
  std::string fixture() const { return report_fixture::results_file.string(); }
};

// "beyond the nan % noise floor" decided a switch before.
TEST_F(HostileInput, NoiseFloorMustBeFinite) {
  for (const char* bad : {"nan", "inf", "-1", "101"})
    expect_refused(
        "advise '" + trace().string() + "' --results '" + fixture() + "' --noise-floor " + bad,
        "--noise-floor");
}

// The lock's refusal tells the user to pass --wait: every measuring command must take it.
TEST_F(HostileInput, ReplayAndAdviseTakeWait) {
  for (const char* command : {"replay", "advise"}) {
    const outcome o = run(std::string(command) + " --wait " + (dir_ / "no.trace").string());
    EXPECT_EQ(o.exit_code, 2) << command << o.err;
    EXPECT_EQ(o.err.find("--wait"), std::string::npos) << command << o.err;  // not refused
  }
}

// hey ran against it and counted 222 577 errors; exit 1.
TEST_F(HostileInput, LoadRefusesANonUrl) {
  for (const char* bad :
       {"'not a url'", "http://", "'http://host name/'", "ftp://x/", "http://:80/"})
    expect_refused(std::string("load --duration 0.5 --url ") + bad, "--url");
}

TEST_F(HostileInput, ReportToStdoutInAPipe) {
  const fs::path out = dir_ / "piped.md", status = dir_ / "status.txt";
  const std::string command = "(env -u LD_PRELOAD '" + binary() + "' report '" + fixture() +
                              "' -o /dev/stdout; echo $? > '" + status.string() + "') | cat > '" +
                              out.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_file(status), "0\n");
  EXPECT_NE(read_file(out).find("# "), std::string::npos) << read_file(out);
}

TEST_F(HostileInput, CompareHtmlByAnyCase) {
  const fs::path page = dir_ / "changes.HTML";
  const outcome o =
      run("compare '" + fixture() + "' '" + fixture() + "' -o '" + page.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(read_file(page).find("<html"), std::string::npos) << read_file(page).substr(0, 200);
}

// `alloclab schema` said version 7 and validate refused 7: a file the results model writes.
TEST_F(HostileInput, SchemaAndValidateAgree) {
  const json written = model::to_json(model::from_json(report_fixture::results()));
  ASSERT_EQ(written.at("schema_version"), model::schema_version);
  std::ofstream(dir_ / "v7.json") << written.dump();
  const outcome o = run("validate '" + (dir_ / "v7.json").string() + "'");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const outcome s = run("schema");
  ASSERT_EQ(s.exit_code, 0);
  const std::string versions = "schema_version " + std::to_string(model::oldest_readable_version) +
                               " to " + std::to_string(model::schema_version);
  EXPECT_NE(json::parse(s.out).at("$comment").get<std::string>().find(versions), std::string::npos)
      << json::parse(s.out).at("$comment");
}

// Medians scaled by 1e300 passed validate, and compare printed [9.8e299, 1.0e300].
TEST_F(HostileInput, AbsurdTimingsAreRefused) {
  json results = report_fixture::results();
  json& timing = results.at("workloads").at(0).at("cells").at(0).at("timing");
  timing["p50_ns"] = timing["p50_ns"].get<double>() * 1e300;
  for (json& median : timing.at("repetition_medians_ns")) median = median.get<double>() * 1e300;
  std::ofstream(dir_ / "absurd.json") << results.dump();
  const outcome o = run("validate '" + (dir_ / "absurd.json").string() + "'");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("p50_ns"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace alloclab::lab
