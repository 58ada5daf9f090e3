// Test plan: report.html in a real browser (headless Chromium, Debian package `chromium`).
//   written by every run next to report.md, and by `report FILE --html OUT`
//                                       -> ReportHtml.RunWritesItAndReportRendersTheSame
//   self-contained: no network request, no script error, every chart container drawn, the
//   tables of report.md present        -> ReportHtml.RendersEveryChartInChromiumWithoutRequests
//   a screenshot for a human (light and dark) kept as an artifact in the build directory:
//   ALLOCLAB_ARTIFACT_DIR/report-screenshot.png and report-screenshot-dark.png.
//   the default run's size (14 workloads x 20 strategies, made from the stored fixture): at
//   1400 px no heat-map label overflows its cell or overlaps a neighbour
//                                       -> ReportHtml.DefaultSizeHeatMapLabelsFitTheirCells
//   (its screenshot: ALLOCLAB_ARTIFACT_DIR/report-default-size.png)
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "measure/build_guard.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using namespace cli_support;

class ReportHtml : public binary_test {
 protected:
  // A small run: two lab workloads (heat map, latency, placement, claims), one heap-study
  // workload (not under sanitizers: ASan owns malloc and the plan refuses heap workloads) and the
  // memory frame's budget workload (memory over time).
  fs::path small_run() const {
    const fs::path root = dir_ / "results";
    const std::string allow = current_build().benchmark_ready() ? "" : " --allow-debug";
    const outcome o = run(
        std::string("run --workloads vector_push,trade_batch") +
        (alloclab::build::sanitized ? "" : ",fifo_uniform") + ",budget_bursts --memory-budget " +
        (alloclab::build::sanitized ? "384M" : "32M") +  // ASan's shadow: ~200 MiB RSS at start
        " --strategies "
        "std,pmr_monotonic,alloclab_arena --iterations 50 --repetitions 5 --processes 1 "
        "--placement-check always --out " +
        root.string() + allow);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("report.html"), std::string::npos) << o.out;
    return root / "latest";
  }

  // Runs Chromium headless on `page`; returns its exit status. Output and errors go to files.
  int chromium(const std::string& flags, const fs::path& page, const fs::path& out) const {
    const fs::path profile = dir_ / "chromium-profile";
    const std::string command =
        std::string("timeout 120 '") + ALLOCLAB_CHROMIUM +
        "' --headless --no-sandbox --disable-gpu --disable-background-networking "
        "--disable-component-update --disable-sync --no-first-run --disable-extensions "
        "--enable-logging=stderr --v=0 --user-data-dir='" +
        profile.string() + "' " + flags + " 'file://" + page.string() + "' >'" + out.string() +
        "' 2>'" + (dir_ / "chromium-stderr.txt").string() + "'";
    return std::system(command.c_str());
  }

  static std::string attribute(const std::string& dom, const std::string& name) {
    std::smatch m;
    const std::regex pattern(name + "=\"([^\"]*)\"");
    return std::regex_search(dom, m, pattern) ? m[1].str() : "(absent)";
  }
};

TEST_F(ReportHtml, RunWritesItAndReportRendersTheSame) {
  const fs::path latest = small_run();
  ASSERT_TRUE(fs::exists(latest / "report.html"));
  const fs::path again = dir_ / "again.html";
  const outcome o =
      run("report " + (latest / "results.json").string() + " --html " + again.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, read_file(latest / "report.md"));  // "Also write": the Markdown still prints
  const std::string html = read_file(again);
  EXPECT_EQ(html, read_file(latest / "report.html"));
  EXPECT_EQ(html.find("http://"), std::string::npos);  // nothing to fetch, not even a link
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v3"), std::string::npos);           // inlined from libjs-chart.js
  EXPECT_NE(html.find("<h2>Seed claims</h2>"), std::string::npos);  // the tables stay
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("prefers-color-scheme: dark"), std::string::npos);
  EXPECT_EQ(
      run("report " + (latest / "results.json").string() + " --html " + dir_.string()).exit_code,
      2);
}

TEST_F(ReportHtml, RendersEveryChartInChromiumWithoutRequests) {
  ASSERT_TRUE(fs::exists(ALLOCLAB_CHROMIUM))
      << "headless Chromium is needed: apt-get install chromium (scripts/deps.sh does)";
  const fs::path page = small_run() / "report.html";
  const fs::path dom_file = dir_ / "dom.html";
  ASSERT_EQ(chromium("--dump-dom --window-size=1280,2000", page, dom_file), 0)
      << read_file(dir_ / "chromium-stderr.txt");
  const std::string dom = read_file(dom_file);
  const std::string log = read_file(dir_ / "chromium-stderr.txt");

  const std::string figures = attribute(dom, "data-charts-total");
  EXPECT_EQ(attribute(dom, "data-script-errors"), "0") << log;
  EXPECT_EQ(attribute(dom, "data-resource-requests"), "0");
  EXPECT_EQ(attribute(dom, "data-charts-rendered"), figures);
  std::size_t containers = 0;
  for (std::size_t at = dom.find("class=\"chart\""); at != std::string::npos;
       at = dom.find("class=\"chart\"", at + 1))
    ++containers;
  EXPECT_EQ(std::to_string(containers), figures);
  // Heat map, peers, one latency chart per lab workload, request sizes, heap study and placement
  // (claims: when measured).
  std::vector<std::string> expected = {"chart-headline",
                                       "chart-peers",
                                       "chart-latency-vector_push",
                                       "chart-latency-trade_batch",
                                       "chart-size-histograms",
                                       "chart-memory-budget_bursts"};
  if (!alloclab::build::sanitized)
    expected.insert(expected.end(),
                    {"chart-heap-study", "chart-placement", "chart-memory-fifo_uniform"});
  for (const std::string& id : expected)
    EXPECT_NE(dom.find("id=\"" + id + "\""), std::string::npos) << id;
  EXPECT_GE(containers, expected.size()) << dom.substr(0, 2000);
  // Console messages (errors, CSP refusals of any request) are logged as CONSOLE lines.
  EXPECT_EQ(log.find("CONSOLE"), std::string::npos) << log;
  EXPECT_EQ(log.find("Refused to"), std::string::npos) << log;

  // Screenshots for a human, light and dark, kept in the build directory.
  const fs::path shot = fs::path(ALLOCLAB_ARTIFACT_DIR) / "report-screenshot.png";
  const fs::path dark = fs::path(ALLOCLAB_ARTIFACT_DIR) / "report-screenshot-dark.png";
  fs::remove(shot);
  fs::remove(dark);
  EXPECT_EQ(
      chromium("--hide-scrollbars --window-size=1280,2400 --screenshot='" + shot.string() + "'",
               page, dir_ / "shot.txt"),
      0);
  EXPECT_EQ(chromium("--force-dark-mode --hide-scrollbars --window-size=1280,2400 --screenshot='" +
                         dark.string() + "'",
                     page, dir_ / "shot-dark.txt"),
            0);
  EXPECT_GT(fs::exists(shot) ? fs::file_size(shot) : 0, 20'000u);
  EXPECT_GT(fs::exists(dark) ? fs::file_size(dark) : 0, 20'000u);
}

// The stored fixture grown to the default run's size: its first lab workload under each of the
// 14 lab workload names, with glibc cells of 19 strategies beside the baseline (a few of them
// "not_applicable", the longest text a cell shows).
nlohmann::json default_size_results() {
  nlohmann::json doc = report_fixture::results();
  const std::vector<std::string> workloads = {
      "log_lines",   "map_int",        "map_string",   "message_queue",      "message_queue_mt",
      "request_mix", "request_mix_mt", "sensor_frame", "string_concat",      "strings_heap",
      "strings_sso", "trade_batch",    "vector_push",  "vector_push_reserve"};
  const std::vector<std::string> strategies = {"pmr_new_delete",
                                               "pmr_monotonic",
                                               "pmr_monotonic_over_pool",
                                               "pmr_monotonic_undersized",
                                               "pmr_unsync_pool",
                                               "pmr_sync_pool",
                                               "alloclab_arena",
                                               "alloclab_arena_static",
                                               "alloclab_pool",
                                               "alloclab_multipool",
                                               "alloclab_multipool_static",
                                               "alloclab_concurrent_multipool",
                                               "boost_pmr_monotonic",
                                               "boost_pmr_unsync_pool",
                                               "boost_pmr_sync_pool",
                                               "foonathan_pool",
                                               "foonathan_pool_collection",
                                               "foonathan_stack",
                                               "mimalloc_heap"};
  nlohmann::json lab_template;
  for (const auto& w : doc["workloads"])
    if (w["kind"] == "lab") lab_template = w;
  nlohmann::json baseline, measured;
  for (const auto& c : lab_template["cells"]) {
    if (c["malloc"] != "glibc") continue;
    (c["strategy"] == "std" ? baseline : measured) = c;
  }
  nlohmann::json grown = nlohmann::json::array();
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    nlohmann::json w = lab_template;
    w["name"] = workloads[i];
    w["cells"] = nlohmann::json::array({baseline});
    for (std::size_t k = 0; k < strategies.size(); ++k) {
      nlohmann::json c = measured;
      c["strategy"] = strategies[k];
      if ((i + k) % 7 == 0) {
        c["status"] = "not_applicable";
        c["reason"] = "not applicable here";
      }
      w["cells"].push_back(c);
    }
    grown.push_back(w);
  }
  doc["workloads"] = grown;
  doc["config"]["workloads"] = workloads;
  doc["config"]["mallocs"] = {"glibc"};
  nlohmann::json all = strategies;
  all.insert(all.begin(), "std");
  doc["config"]["strategies"] = all;
  return doc;
}

TEST_F(ReportHtml, DefaultSizeHeatMapLabelsFitTheirCells) {
  ASSERT_TRUE(fs::exists(ALLOCLAB_CHROMIUM))
      << "headless Chromium is needed: apt-get install chromium (scripts/deps.sh does)";
  const fs::path results = dir_ / "results.json";
  std::ofstream(results) << default_size_results().dump(1);
  const fs::path page = dir_ / "report.html";
  const outcome o = run("report " + results.string() + " --html " + page.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const fs::path dom_file = dir_ / "dom.html";
  ASSERT_EQ(chromium("--dump-dom --window-size=1400,2000", page, dom_file), 0)
      << read_file(dir_ / "chromium-stderr.txt");
  const std::string dom = read_file(dom_file);
  EXPECT_EQ(attribute(dom, "data-script-errors"), "0");
  EXPECT_NE(dom.find("id=\"chart-headline\""), std::string::npos);
  EXPECT_NE(dom.find("vector_push_reserve"), std::string::npos);
  EXPECT_EQ(attribute(dom, "data-heatmap-overflows"), "0");
  const fs::path shot = fs::path(ALLOCLAB_ARTIFACT_DIR) / "report-default-size.png";
  EXPECT_EQ(
      chromium("--hide-scrollbars --window-size=1400,1600 --screenshot='" + shot.string() + "'",
               page, dir_ / "shot.txt"),
      0);
}

}  // namespace
}  // namespace alloclab::lab
