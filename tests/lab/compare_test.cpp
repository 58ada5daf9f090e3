// Test plan: `alloclab compare A.json B.json` driven through the built binary.
//   cells in both, ratio, interval and U test  -> Compare.SameRunAgainstItselfIsNoChange,
//                                                  Compare.SlowerCopyIsASignificantRegression
//   --fail-on-regression PCT (exit 1 / 0)      -> Compare.SlowerCopyIsASignificantRegression
//   cells in one file only are listed          -> Compare.CellsInOneFileOnlyAreListed
//   different machine/build/config: a warning  -> Compare.DifferentMachineIsAWarningAtTheTop
//   -o OUT.md / OUT.html                        -> Compare.WritesMarkdownAndHtml
//   the HTML chart's classes are the verdicts   -> Compare.TheHtmlChartColoursByTheVerdict
//   bad input: exit 2, one line                 -> Compare.BadInputIsExitTwoWithOneLine
//   a change inside the noise floor is no change, the floor is printed, a smoke test is a warning
//                                               -> Compare.SmallShiftsAreNoiseUnlessTheFloorIsLowered
//   NaN thresholds and unwritable -o are refused before any output
//                                               -> Compare.NanThresholdAndBadOutputAreRefusedFirst
// A and B are one small real run and copies of it edited by hand (medians scaled, a cell removed),
// so every expectation follows from the edit, not from timing.
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "measure/build_guard.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

class Compare : public binary_test {
 protected:
  // One small run per test suite, shared: trade_batch and vector_push x std, alloclab_arena.
  static void SetUpTestSuite() {
    shared_ = fs::temp_directory_path() / ("alloclab_compare_" + std::to_string(::getpid()));
    fs::remove_all(shared_);
    fs::create_directories(shared_);
    const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
    const std::string command =
        "env -u LD_PRELOAD '" + std::string(ALLOCLAB_BINARY) +
        "' run --workloads trade_batch,vector_push --strategies std,alloclab_arena "
        "--iterations 50 --repetitions 6 --processes 2 --no-placement-check --out '" +
        (shared_ / "results").string() + "'" + allow + " >/dev/null 2>&1";
    run_status_ = std::system(command.c_str());
  }
  static void TearDownTestSuite() { fs::remove_all(shared_); }

  void SetUp() override {
    binary_test::SetUp();
    ASSERT_EQ(run_status_, 0) << "the shared small run failed";
    a_ = json::parse(read_file(shared_ / "results" / "latest" / "results.json"));
  }

  fs::path write(const std::string& name, const json& results) const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << results.dump(1);
    return path;
  }

  // Pins the repetition medians (and p50) of one cell of a_ to 100..105 ns, so what the tests
  // compare does not depend on how noisy the shared machine was.
  void pin(const std::string& w, const std::string& strategy) {
    for (auto& workload : a_["workloads"])
      for (auto& c : workload["cells"])
        if (workload["name"] == w && c["strategy"] == strategy) {
          c["timing"]["repetition_medians_ns"] = {100.0, 101.0, 102.0, 103.0, 104.0, 105.0};
          c["timing"]["p50_ns"] = 102.5;
        }
  }

  // Every timing figure of workload `w`, cell `strategy`, times `factor`.
  static void scale(json& results, const std::string& w, const std::string& strategy,
                    double factor) {
    for (auto& workload : results["workloads"]) {
      if (workload["name"] != w) continue;
      for (auto& c : workload["cells"]) {
        if (c["strategy"] != strategy) continue;
        for (auto& [key, value] : c["timing"].items()) {
          if (key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0) {
            if (value.is_number()) value = value.get<double>() * factor;
            if (value.is_array())
              for (auto& v : value) v = v.get<double>() * factor;
          }
        }
      }
    }
  }

  // {ratio, low, high} of the terminal table's row for `cell`; NaNs when it is absent.
  static std::array<double, 3> ratio_of(const std::string& out, const std::string& cell) {
    // "cell  3868 ns  3.9 µs  1.00x [0.97–1.03]" (A ÷ B): the two p50s carry their unit.
    const std::regex row(cell +
                         R"( +[0-9.]+ \S+ +[0-9.]+ \S+ +([0-9.]+)x \[([0-9.]+)–([0-9.]+)\])");
    std::smatch m;
    if (!std::regex_search(out, m, row)) return {std::nan(""), std::nan(""), std::nan("")};
    return {std::stod(m[1]), std::stod(m[2]), std::stod(m[3])};
  }

  static inline fs::path shared_;
  static inline int run_status_ = -1;
  json a_;
};

TEST_F(Compare, SameRunAgainstItselfIsNoChange) {
  const fs::path a = write("a.json", a_);
  const outcome o = run("compare " + a.string() + " " + a.string() + " --fail-on-regression 0");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out.find("warning: different"), std::string::npos) << o.out;
  // Debug and sanitizer builds run with --allow-debug; the comparison says so.
  EXPECT_EQ(o.out.find("warning: a DEBUG build") != std::string::npos,
            !current_build().benchmark_ready())
      << o.out;
  EXPECT_NE(o.out.find("trade_batch / alloclab_arena @ glibc"), std::string::npos) << o.out;
  const auto [ratio, low, high] = ratio_of(o.out, "vector_push / std @ glibc");
  EXPECT_EQ(ratio, 1.0) << o.out;
  EXPECT_LE(low, 1.0) << o.out;  // each side is resampled on its own: the interval is not a point
  EXPECT_GE(high, 1.0) << o.out;
  EXPECT_EQ(o.out.find("decided slower"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("decided faster"), std::string::npos) << o.out;
}

TEST_F(Compare, SlowerCopyIsASignificantRegression) {
  pin("vector_push", "std");
  json b = a_;
  scale(b, "vector_push", "std", 1.5);
  const fs::path a = write("a.json", a_), bp = write("b.json", b);
  const outcome o = run("compare " + a.string() + " " + bp.string() + " --fail-on-regression 20");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("1 cell slower than A by more than 20%, outside the noise"),
            std::string::npos)
      << o.err;
  const auto [ratio, low, high] = ratio_of(o.out, "vector_push / std @ glibc");
  // A ÷ B, the lab's one convention: B 1.5 times as slow is 0.67 (< 1: B is slower).
  EXPECT_NEAR(ratio, 1 / 1.5, 0.005) << o.out;
  EXPECT_LT(high, 1.0) << o.out;
  EXPECT_LE(low, 1 / 1.5 + 0.005) << o.out;
  EXPECT_GE(high, 1 / 1.5 - 0.005) << o.out;
  EXPECT_NE(o.out.find("decided slower, B's time +50.0 %\n"), std::string::npos) << o.out;
  // The same slowdown under a higher threshold, or without the option, passes.
  EXPECT_EQ(run("compare " + a.string() + " " + bp.string() + " --fail-on-regression 60").exit_code,
            0);
  EXPECT_EQ(run("compare " + a.string() + " " + bp.string()).exit_code, 0);
  // A speed-up is never a regression.
  EXPECT_EQ(run("compare " + bp.string() + " " + a.string() + " --fail-on-regression 0").exit_code,
            0);
}

TEST_F(Compare, CellsInOneFileOnlyAreListed) {
  json b = a_;
  for (auto& w : b["workloads"])
    if (w["name"] == "trade_batch") w["cells"].erase(1);  // alloclab_arena
  const fs::path a = write("a.json", a_), bp = write("b.json", b);
  const outcome o = run("compare " + a.string() + " " + bp.string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("only in A: trade_batch / alloclab_arena @ glibc (ok)"), std::string::npos)
      << o.out;
  const outcome reversed = run("compare " + bp.string() + " " + a.string());
  EXPECT_NE(reversed.out.find("only in B: trade_batch / alloclab_arena @ glibc (ok)"),
            std::string::npos)
      << reversed.out;
}

TEST_F(Compare, DifferentMachineIsAWarningAtTheTop) {
  json b = a_;
  b["environment"]["cpu_model"] = "Imaginary CPU 9000";
  b["config"]["seed"] = 12345;
  const fs::path a = write("a.json", a_), bp = write("b.json", b);
  const outcome o = run("compare " + a.string() + " " + bp.string());
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const std::size_t warning = o.out.find("warning: different machine: cpu_model");
  ASSERT_NE(warning, std::string::npos) << o.out;
  EXPECT_NE(o.out.find("'Imaginary CPU 9000' in B"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("warning: different config: seed"), std::string::npos) << o.out;
  EXPECT_LT(warning, o.out.find("A÷B"));  // above the table
}

TEST_F(Compare, WritesMarkdownAndHtml) {
  pin("trade_batch", "std");
  json b = a_;
  scale(b, "trade_batch", "std", 0.5);
  const fs::path a = write("a.json", a_), bp = write("b.json", b);
  ASSERT_EQ(run("compare " + a.string() + " " + bp.string() + " -o " + (dir_ / "c.md").string())
                .exit_code,
            0);
  const std::string md = read_file(dir_ / "c.md");
  EXPECT_NE(md.find("| trade_batch / std @ glibc |"), std::string::npos) << md;
  EXPECT_NE(md.find("decided faster, B's time -50.0 % |"), std::string::npos) << md;
  ASSERT_EQ(run("compare " + a.string() + " " + bp.string() + " -o " + (dir_ / "c.html").string())
                .exit_code,
            0);
  const std::string html = read_file(dir_ / "c.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<td>trade_batch / std @ glibc</td>"), std::string::npos);
  EXPECT_NE(html.find("\"comparison\":"), std::string::npos);
}

// The HTML chart colours each row by its verdict (stats/decision.hpp verdict_word), not by the
// U test alone: a change decided the same within the floor and an open one are different classes
// with different colours, though neither is "significant".
TEST_F(Compare, TheHtmlChartColoursByTheVerdict) {
  for (auto& workload : a_["workloads"])
    for (auto& c : workload["cells"])
      if (workload["name"] == "vector_push" && c["strategy"] == "std") {
        c["timing"]["repetition_medians_ns"] = {100.0, 100.2, 100.4, 100.6, 100.8, 101.0};
        c["timing"]["p50_ns"] = 100.5;
      }
  pin("trade_batch", "std");
  json b = a_;
  scale(b, "vector_push", "std", 1.02);  // inside the 3 % floor: the same within it
  for (auto& workload : b["workloads"])
    for (auto& c : workload["cells"])
      if (workload["name"] == "trade_batch" && c["strategy"] == "std") {  // too spread: open
        c["timing"]["repetition_medians_ns"] = {80.0, 130.0, 95.0, 120.0, 90.0, 125.0};
        c["timing"]["p50_ns"] = 107.5;
      }
  const fs::path a = write("a.json", a_), bp = write("b.json", b), page = dir_ / "c.html";
  ASSERT_EQ(run("compare " + a.string() + " " + bp.string() + " -o " + page.string()).exit_code, 0);
  const std::string html = read_file(page);
  const std::string open_tag = "<script type=\"application/json\" id=\"alloclab-data\">";
  const std::size_t at = html.find(open_tag);
  ASSERT_NE(at, std::string::npos);
  const std::size_t from = at + open_tag.size();
  const json data = json::parse(html.substr(from, html.find("</script>", from) - from));
  std::map<std::string, std::string> verdict;
  for (const json& row : data.at("comparison").at("common"))
    verdict[row.at("workload").get<std::string>() + "/" + row.at("strategy").get<std::string>()] =
        row.at("verdict").get<std::string>();
  EXPECT_EQ(verdict.at("vector_push/std"), "same") << data.dump();
  EXPECT_EQ(verdict.at("trade_batch/std"), "open") << data.dump();
  // The chart's classes: each verdict its own colour, read from the page's script.
  std::map<std::string, std::string> colour;
  const std::regex entry(R"re((slower|faster|same|open): '(--[a-z]+)')re");
  const std::size_t map_at = html.find("compareVerdictColor = {");
  ASSERT_NE(map_at, std::string::npos);
  const std::string map_text = html.substr(map_at, html.find('}', map_at) - map_at);
  for (std::sregex_iterator i(map_text.begin(), map_text.end(), entry), end; i != end; ++i)
    colour[(*i)[1]] = (*i)[2];
  ASSERT_EQ(colour.size(), 4u) << map_text;
  EXPECT_NE(colour.at("same"), colour.at("open"));
  EXPECT_NE(colour.at("slower"), colour.at("faster"));
  EXPECT_NE(html.find("compareVerdictColor[r.verdict]"), std::string::npos);
  EXPECT_EQ(html.find("r.significant"), std::string::npos) << "the chart no longer reads it";
}

TEST_F(Compare, BadInputIsExitTwoWithOneLine) {
  const fs::path a = write("a.json", a_);
  const auto expect_bad = [&](const std::string& args, const std::string& text) {
    const outcome o = run("compare " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << args << ": stderr was\n" << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << args << ": stderr was\n" << o.err;
  };
  json old = a_;
  old["schema_version"] = 2;
  expect_bad(a.string() + " " + write("old.json", old).string(), "schema_version 2");
  std::ofstream(dir_ / "not.json") << "{\"hello\": 1}";
  expect_bad(a.string() + " " + (dir_ / "not.json").string(), "not an alloclab results file");
  std::ofstream(dir_ / "broken.json") << "{";
  expect_bad((dir_ / "broken.json").string() + " " + a.string(), "not valid JSON");
  expect_bad(a.string() + " " + (dir_ / "missing.json").string(), "cannot read");
  json other = a_;
  for (auto& w : other["workloads"]) w["name"] = "renamed_" + w["name"].get<std::string>();
  expect_bad(a.string() + " " + write("other.json", other).string(), "no cell");
  expect_bad(a.string(), "two results files");
  expect_bad(a.string() + " " + a.string() + " --fail-on-regression -5", "fail-on-regression");
}

TEST_F(Compare, SmallShiftsAreNoiseUnlessTheFloorIsLowered) {
  // Tight repetitions (100.0 to 101.0 ns), so a 2 % shift separates the two sides completely.
  for (auto& workload : a_["workloads"])
    for (auto& c : workload["cells"])
      if (workload["name"] == "vector_push" && c["strategy"] == "std") {
        c["timing"]["repetition_medians_ns"] = {100.0, 100.2, 100.4, 100.6, 100.8, 101.0};
        c["timing"]["p50_ns"] = 100.5;
      }
  json b = a_;
  scale(b, "vector_push", "std", 1.02);  // every repetition 2 % slower: the U test alone flags it
  b["smoke_test"] = true;
  const fs::path a = write("a.json", a_), bp = write("b.json", b);
  const outcome o = run("compare " + a.string() + " " + bp.string() + " --fail-on-regression 0");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("noise floor of 3 %"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("warning: B is a smoke test"), std::string::npos) << o.out;
  // The U test flags it, but its interval lies inside the 3 % floor: the same within it.
  EXPECT_NE(o.out.find("the same within ±3 % (B's time +2.0 %)"), std::string::npos) << o.out;
  const outcome strict =
      run("compare " + a.string() + " " + bp.string() + " --fail-on-regression 0 --noise-floor 0");
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_NE(strict.out.find("noise floor of 0 %"), std::string::npos) << strict.out;
}

TEST_F(Compare, NanThresholdAndBadOutputAreRefusedFirst) {
  const fs::path a = write("a.json", a_);
  for (const char* bad : {"nan", "inf", "-nan"}) {
    const outcome o =
        run("compare " + a.string() + " " + a.string() + " --fail-on-regression " + bad);
    EXPECT_EQ(o.exit_code, 2) << bad << ": " << o.err;
    EXPECT_NE(o.err.find("finite"), std::string::npos) << o.err;
  }
  const outcome missing_dir = run("compare " + a.string() + " " + a.string() + " -o " +
                                  (dir_ / "nonexist" / "x.html").string());
  EXPECT_EQ(missing_dir.exit_code, 2) << missing_dir.err;
  EXPECT_EQ(missing_dir.out, "");  // checked before the table is printed
  EXPECT_EQ(line_count(missing_dir.err), 1u) << missing_dir.err;
}

}  // namespace
}  // namespace alloclab::lab
