// Test plan: what a new user met trying every command, one test each (each failed before its fix).
//   output never replaces a fifo, a directory or a symlink  -> NewUser.OutputsNeverReplaceSpecialFiles
//   every output path is checked before any work            -> NewUser.OutputPathsAreCheckedFirst
//   a file named `latest` is refused, not replaced          -> NewUser.LatestThatIsAFileIsRefused
//   the process count is the one that ran                   -> NewUser.ProcessCountIsWhatRan
//   report --html still prints the Markdown ("Also write")  -> NewUser.ReportHtmlAlsoPrintsMarkdown
//   the terminal's claim tally names every verdict          -> ClaimsTally.CountsEveryVerdictByName
//   ratios print the digits their interval supports         -> RatioText.DigitsFollowTheInterval
//   one rule decides a difference (U test and interval)     -> Decision.NeedsTheTestAndTheInterval
//   the placement twin is forced or refused by the option   -> NewUser.PlacementCheckNeverMeasuresNoTwin
//   whatever validate accepts, report renders (mutations)   -> NewUser.ValidatedMutantsRender
//   help, unknown options, stdout errors                    -> NewUser.HelpAndUnknownOptions
//   progress lines are cut to the terminal's width          -> Progress.LinesFitTheTerminal
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "main/commands.hpp"
#include "measure/build_guard.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "results/claims.hpp"
#include "results/schema_check.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"
#include "run_support.hpp"

namespace alloclab::lab {
namespace {
using run_support::allow_debug;
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

class NewUser : public binary_test {
 protected:
  // One small run shared by the suite: trade_batch x std, pmr_monotonic, 2 processes.
  static void SetUpTestSuite() {
    shared_ = fs::temp_directory_path() / ("alloclab_new_user_" + std::to_string(::getpid()));
    fs::remove_all(shared_);
    fs::create_directories(shared_);
    const std::string command =
        "env -u LD_PRELOAD '" + std::string(ALLOCLAB_BINARY) +
        "' run --workloads trade_batch,vector_push --strategies std,pmr_monotonic --iterations 30 "
        "--repetitions 2 --processes 3 --placement-check never --out '" +
        (shared_ / "r").string() + "'" + allow_debug() + " >/dev/null 2>&1";
    run_status_ = std::system(command.c_str());
  }
  static void TearDownTestSuite() { fs::remove_all(shared_); }
  void SetUp() override {
    binary_test::SetUp();
    ASSERT_EQ(run_status_, 0) << "the shared small run failed";
  }
  static fs::path results() { return shared_ / "r" / "latest" / "results.json"; }
  static std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }
  void expect_refused(const outcome& o, const std::string& text) const {
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << o.err;
  }

  static inline fs::path shared_;
  static inline int run_status_ = -1;
};

TEST_F(NewUser, OutputsNeverReplaceSpecialFiles) {
  const fs::path pipe = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  fs::create_directories(dir_ / "target");
  std::ofstream(dir_ / "target" / "report.md") << "old";
  fs::create_symlink("target/report.md", dir_ / "link.md");

  expect_refused(run("report " + quoted(results()) + " -o " + quoted(pipe)), "fifo");
  expect_refused(run("report " + quoted(results()) + " --html " + quoted(pipe)), "fifo");
  expect_refused(
      run("compare " + quoted(results()) + " " + quoted(results()) + " -o " + quoted(pipe)),
      "fifo");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(pipe)));

  const outcome through_link =
      run("report " + quoted(results()) + " -o " + quoted(dir_ / "link.md"));
  ASSERT_EQ(through_link.exit_code, 0) << through_link.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir_ / "link.md")));
  EXPECT_NE(read_file(dir_ / "target" / "report.md").find("# alloclab"), std::string::npos);
}

TEST_F(NewUser, OutputPathsAreCheckedFirst) {
  const fs::path html = dir_ / "h2.html";
  expect_refused(run("report " + quoted(results()) + " --html " + quoted(html) + " -o " +
                     quoted(dir_ / "nonexist" / "x.md")),
                 "does not exist");
  EXPECT_FALSE(fs::exists(html));
  const outcome compared = run("compare " + quoted(results()) + " " + quoted(results()) + " -o " +
                               quoted(dir_ / "nonexist" / "x.html"));
  expect_refused(compared, "does not exist");
  EXPECT_EQ(compared.out, "");
}

TEST_F(NewUser, LatestThatIsAFileIsRefused) {
  fs::create_directories(dir_ / "out");
  std::ofstream(dir_ / "out" / "latest") << "mine";
  const outcome o =
      run("run --workloads trade_batch --strategies std --iterations 5 "
          "--repetitions 1 --placement-check never --out " +
          quoted(dir_ / "out") + allow_debug());
  expect_refused(o, "not the link alloclab maintains");
  EXPECT_EQ(read_file(dir_ / "out" / "latest"), "mine");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "out"), fs::directory_iterator()), 1);
}

TEST_F(NewUser, ProcessCountIsWhatRan) {
  const json r = json::parse(read_file(results()));
  EXPECT_EQ(r.at("config").at("processes"), 2);  // asked for 3, but 2 repetitions fill 2
  const std::string report = read_file(shared_ / "r" / "latest" / "report.md");
  EXPECT_EQ(report.find("3 fresh processes"), std::string::npos);
  EXPECT_EQ(report.find("3 processes per cell"), std::string::npos);
}

TEST_F(NewUser, ReportHtmlAlsoPrintsMarkdown) {
  const outcome o = run("report " + quoted(results()) + " --html " + quoted(dir_ / "r.html"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, read_file(shared_ / "r" / "latest" / "report.md"));
  EXPECT_TRUE(fs::exists(dir_ / "r.html"));
}

TEST_F(NewUser, PlacementCheckNeverMeasuresNoTwin) {
  const json r = json::parse(read_file(results()));
  EXPECT_TRUE(r.at("config").at("placement_twin").is_null());
  EXPECT_EQ(r.at("environment").at("placement").at("check"), "never");
  for (const auto& w : r.at("workloads")) {
    EXPECT_EQ(w.at("cells").size(), 2u) << w.at("name");
    EXPECT_TRUE(w.at("placement").is_null()) << w.at("name");
  }
  EXPECT_EQ(read_file(shared_ / "r" / "latest" / "report.md").find("## Placement"),
            std::string::npos);
  const outcome bad = run("run --placement-check sometimes");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// "/a/0/b" -> {"a", "0", "b"}.
std::vector<std::string> split_pointer(const std::string& pointer) {
  std::vector<std::string> tokens;
  for (std::size_t at = 1; at <= pointer.size();) {
    const std::size_t next = std::min(pointer.find('/', at), pointer.size());
    tokens.push_back(pointer.substr(at, next - at));
    at = next + 1;
  }
  return tokens;
}

// Random edits of a real results file (a value replaced by another type, a key removed): any
// mutant the schema accepts must render as `report` renders it (claims judged, Markdown, HTML),
// never throw. In process, so a few thousand mutants take seconds.
TEST_F(NewUser, ValidatedMutantsRender) {
  const json original = json::parse(read_file(results()));
  // Every field equally likely, however long its arrays: leaves grouped by their path with the
  // array indices blanked ("/workloads/*/cells/*/timing/p50_ns"), a group drawn, then a leaf.
  std::map<std::string, std::vector<json::json_pointer>> fields;
  const json leaves = original.flatten();
  for (const auto& [key, value] : leaves.items()) {
    std::string shape;
    for (const std::string& token : split_pointer(key))
      shape += "/" + (token.find_first_not_of("0123456789") == std::string::npos ? "*" : token);
    fields[shape].emplace_back(key);
  }
  std::vector<const std::vector<json::json_pointer>*> groups;
  for (const auto& [shape, members] : fields) groups.push_back(&members);
  std::mt19937_64 random(17);
  const json replacements[] = {json::array(), json(nullptr), json("x"),   json::object(),
                               json(-1),      json(""),      json(1e300), json(true)};
  int accepted = 0;
  // Fewer under the sanitizers, where rendering is ten times slower.
  const int mutants = alloclab::build::sanitized ? 300 : 1500;
  for (int i = 0; i < mutants; ++i) {
    json mutant = original;
    const auto& group = *groups[random() % groups.size()];
    json::json_pointer at = group[random() % group.size()];
    // The leaf, or one of its parents, so whole objects and arrays are replaced too.
    for (std::uint64_t up = random() % 4 == 0 ? random() % 3 : 0; up > 0 && !at.empty(); --up)
      at = at.parent_pointer();
    if (at.empty()) continue;
    json& parent = mutant[at.parent_pointer()];
    if (random() % 4 == 0 && parent.is_object())
      parent.erase(at.back());
    else
      mutant[at] = replacements[random() % std::size(replacements)];
    if (!schema_violations(mutant, results_schema()).empty()) continue;
    ++accepted;
    try {
      mutant["claims"] = judge_claims(mutant, seed_claims());
      render_report(mutant);
      render_html_report(mutant);
    } catch (const std::exception& e) {
      ADD_FAILURE() << at.to_string() << " <- " << mutant[at].dump() << ": " << e.what();
    }
  }
  EXPECT_GT(accepted, mutants / 15);  // many edits are legal, so rendering them was really tried
}

TEST_F(NewUser, HelpAndUnknownOptions) {
  const outcome help_run = run("help run");
  EXPECT_EQ(help_run.exit_code, 0) << help_run.err;
  EXPECT_NE(help_run.out.find("--placement-check"), std::string::npos) << help_run.out;
  EXPECT_NE(help_run.out.find("report.html"), std::string::npos) << help_run.out;
  const outcome bogus = run("--bogus");
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("--bogus"), std::string::npos) << bogus.err;
  EXPECT_EQ(bogus.err.find("A subcommand is required"), std::string::npos) << bogus.err;
  if (fs::exists("/dev/full")) {  // a failed write to stdout is a failure, --help included
    for (const char* args : {"--help", "list", "help run"}) {
      const std::string command =
          "env -u LD_PRELOAD '" + binary() + "' " + args + " >/dev/full 2>/dev/null";
      const int status = std::system(command.c_str());
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << args;
    }
  }
  EXPECT_NE(run("help nope").exit_code, 0);
}

TEST(ClaimsTally, CountsEveryVerdictByName) {
  std::vector<model::claim_verdict> claims;
  for (const char* verdict : {"reproduced", "inconclusive", "not measurable here",
                              "not judged: too few samples", "reproduced"}) {
    claims.emplace_back();
    claims.back().verdict = verdict;
  }
  EXPECT_EQ(claims_tally(claims),
            "seed claims: 2 reproduced, 1 inconclusive, 1 not judged: too few samples, 1 not "
            "measurable here\n");
  EXPECT_EQ(claims_tally({}), "seed claims: none judged\n");
}

TEST(RatioText, DigitsFollowTheInterval) {
  EXPECT_EQ(ratio_with_interval(22.34, 1.45, 46.95), "22× [1.4–47]");
  EXPECT_EQ(ratio_with_interval(1.071, 1.049, 1.102), "1.07× [1.05–1.10]");
  EXPECT_EQ(ratio_with_interval(1.0312, 1.0301, 1.0339, "x"), "1.031x [1.030–1.034]");
  EXPECT_EQ(ratio_with_interval(1.07, 1.07, 1.07), "1.07× (one repetition per side: no interval)");
  EXPECT_EQ(ratio_with_interval(1.07, std::nullopt, std::nullopt), "1.07× (no interval)");
  EXPECT_EQ(ratio_with_interval(0.134, 0.1, 0.3, "x"), "0.13x [0.10–0.30]");
}

TEST(Progress, LinesFitTheTerminal) {
  EXPECT_EQ(fit_to_width("[3/10 cell processes] vector_push x std", 10), "[3/10 cel");
  EXPECT_EQ(fit_to_width("short", 80), "short");
  EXPECT_EQ(fit_to_width("short", 0), "short");
  EXPECT_EQ(fit_to_width("µs µs µs", 4), "µs ");  // characters, not bytes
}

TEST(Decision, NeedsTheTestAndTheInterval) {
  EXPECT_EQ(judge_difference(0.001, true, {1.1, 1.3}), difference::higher);
  EXPECT_EQ(judge_difference(0.001, true, {0.7, 0.9}), difference::lower);
  EXPECT_EQ(judge_difference(0.001, true, {0.95, 1.3}), difference::inside_noise);
  EXPECT_EQ(judge_difference(0.2, true, {1.1, 1.3}), difference::inside_noise);
  EXPECT_EQ(judge_difference(0.001, false, {1.1, 1.3}), difference::too_few);  // 3 vs 3 replays
  EXPECT_EQ(judge_difference(0.001, true, {1.01, 1.02}, 0.03), difference::inside_noise);
  EXPECT_EQ(judge_difference(0.001, true, {0.98, 0.99}, 0.03), difference::inside_noise);
  EXPECT_EQ(judge_difference(0.001, true, {}), difference::inside_noise);
}

}  // namespace
}  // namespace alloclab::lab
