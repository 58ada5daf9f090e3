// Test plan: report.md is rendered from the results file alone, and the same results render the
// same bytes. tests/data/report_fixture/ holds a --quick run (batch request_mix; heap
// fifo_lognormal and fifo_uniform under glibc and jemalloc; placement costs cut to a few) and the
// report.md that run wrote before the report's statistics moved into the results builder.
//   the fixture renders to that report.md byte for byte (RendersTheStoredReportByteForByte);
//   its heap_retention is what the builder computes from its cells
//     (RetentionSummaryIsTheBuildersOwn);
//   it is a valid results file (FixtureIsSchemaValid);
//   its HTML page's charts carry each cell's verdict word (HtmlChartsCarryTheReportsVerdicts);
//   read once into the results model, it renders the same report, with its key sections, and the
//     console headline; both give verdicts in the one vocabulary, not the old marks
//     (KeySectionsFromTheModelReadOnce).
// With a budget account added (PairedIntervals): where the run judged a cell against its
// baseline paired, the headline, the workload and heap tables, the console and report.html's heat
// map show the stop rule's paired interval and its verdict, with a legend; cells not judged
// paired keep the bootstrap (marked †), and a run with nothing paired reads as before; the table
// of open comparisons says which the cap on a cell's processes starves.
// tests/data/try_fixture/ holds an `alloclab try` run (glibc, jemalloc and a knob variant, adaptive
// rounds, output checked) with the report.md and console summary main's binary wrote for it:
//   the program frame's report and console summary render from its model part byte for byte
//     (TryFixture.RendersTheStoredReportAndConsoleByteForByte).
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "frames/program/program_model.hpp"
#include "model/run_account.hpp"
#include "frames/program/program_results.hpp"
#include "model/document.hpp"
#include "render/html.hpp"
#include "render/markdown.hpp"
#include "frames/heap/heap_retention.hpp"
#include "results/schema_check.hpp"
#include "render/columns.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
using cli_support::read_file;
TEST(ReportFixture, RendersTheStoredReportByteForByte) {
  const std::string expected = read_file(report_fixture::directory / "report.md");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(render_report(report_fixture::results()), expected);
}

// The fixture's heap cells that measured their memory, as the results builder hands them over.
std::vector<cell_retention> measured_heap_cells(const model::document& d) {
  std::vector<cell_retention> cells;
  for (const model::workload& w : d.workloads)
    for (const model::cell& c : w.cells)
      if (const auto* f = c.figures.as<heap_cell_figures>();
          f && f->memory && c.head.status == "ok")
        cells.push_back({c.head.malloc, f->memory->retention, f->memory->purge.method});
  return cells;
}

TEST(ReportFixture, RetentionSummaryIsTheBuildersOwn) {
  const model::document d = model::from_json(report_fixture::results());
  const heap_document_figures* top = d.parts.get<heap_document_figures>();
  ASSERT_NE(top, nullptr);
  ASSERT_FALSE(top->heap_retention.empty());
  EXPECT_EQ(model::write_json(heap_retention_summary(measured_heap_cells(d))),
            model::write_json(top->heap_retention));
}

TEST(ReportFixture, FixtureIsSchemaValid) {
  const auto problems = schema_violations(report_fixture::results(), results_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(ReportFixture, KeySectionsFromTheModelReadOnce) {
  const model::document d = model::from_json(report_fixture::results());
  const std::string md = render_report(d);
  EXPECT_EQ(md, render_report(report_fixture::results()));
  for (const char* section :
       {"# alloclab report\n", "> **SMOKE TEST (`--quick`)**", "## Headline: speed vs std @ glibc",
        "## alloclab vs peers", "| request_mix | ", "## What the numbers include", "## Seed claims",
        "## Workloads\n\n### request_mix", "| strategy @ malloc | p50 | p99 |", "## Method",
        "- Heap study: every (workload, malloc) cell", "## Environment",
        "| memmove placement probe | "})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  // The sections in the report's order.
  EXPECT_LT(md.find("## Headline"), md.find("## Seed claims"));
  EXPECT_LT(md.find("## Seed claims"), md.find("## Workloads"));
  EXPECT_LT(md.find("## Workloads"), md.find("## Method"));
  const std::string headline = render_headline(d);
  for (const char* line :
       {"SMOKE TEST (--quick)", "speed vs std @ glibc at p50", "heap study:", "seed claims: "})
    EXPECT_NE(headline.find(line), std::string::npos) << line << "\n" << headline;
  // One vocabulary: the report's verdicts in full, the console's in one word of the same verdict.
  EXPECT_NE(md.find("1.49× [1.19–1.76] decided faster"), std::string::npos);
  EXPECT_NE(md.find("0.98× [0.67–1.48] open (inconclusive)"), std::string::npos);
  EXPECT_NE(headline.find("1.49 faster"), std::string::npos) << headline;
  EXPECT_NE(headline.find("0.98 open"), std::string::npos) << headline;
  for (const char* old_mark : {"] **", "n.s.", "1.49**"}) {
    EXPECT_EQ(md.find(old_mark), std::string::npos) << old_mark;
    EXPECT_EQ(headline.find(old_mark), std::string::npos) << old_mark;
  }
}

// The HTML page's heatmap reads each cell's verdict word from the page's copy of the results
// (render/html.cpp with_verdicts); the results themselves gain nothing.
TEST(ReportFixture, HtmlChartsCarryTheReportsVerdicts) {
  const json results = report_fixture::results();
  const std::string html = render_html_report(results);
  EXPECT_NE(html.find("\"verdict\":\"faster\""), std::string::npos);
  EXPECT_NE(html.find("\"verdict\":\"open\""), std::string::npos);
  EXPECT_EQ(results.dump().find("\"verdict\":\"faster\""), std::string::npos);
}

// A budgeted run's account over the fixture's request_mix cells: `pmr_monotonic_over_pool @
// glibc` judged paired (its stop-rule interval narrower than, and apart from, the fixture's
// bootstrap 1.49× [1.19–1.76]); `std @ jemalloc` paired and the same within 2 % (the bootstrap
// says 0.98× [0.67–1.48], open); `pmr_monotonic_over_pool @ jemalloc` judged on unpaired
// processes (paired_runs 0), so it keeps its bootstrap interval.
model::budget_comparison tracked_vs_std(const std::string& strategy, const std::string& malloc,
                                        double value, double low, double high,
                                        std::size_t paired_runs, const std::string& verdict) {
  model::budget_comparison c;
  c.id = "vs_std request_mix / " + strategy + " @ " + malloc;
  c.kind = "vs_std";
  c.metric = "p50";
  c.state = verdict == "open" ? "open" : "decided";
  c.base = {"batch", "request_mix", "std", "glibc"};
  c.candidate = {"batch", "request_mix", strategy, malloc};
  c.boundaries = {1.0};
  c.value = value;
  c.low = low;
  c.high = high;
  c.df = 7;
  c.processes = {8, 8};
  c.paired_runs.emplace(paired_runs);
  c.margin.emplace(0.02);
  c.verdict.emplace(verdict);
  return c;
}

json with_budget(json results, std::size_t paired_runs) {
  model::budget_facts b;
  b.mode = "budget";
  b.budget_seconds = 300;
  b.spent_seconds = 290;
  b.stopped = "budget spent";
  b.stop_rule = {"the stop rule", "the simulation", 4, 0.05, 0.9733, 4};
  b.processes = 32;
  b.decided = 3;
  b.comparisons = {
      tracked_vs_std("pmr_monotonic_over_pool", "glibc", 1.412, 1.398, 1.426, paired_runs,
                     "candidate faster"),
      tracked_vs_std("std", "jemalloc", 0.994, 0.986, 1.002, paired_runs,
                     "the same within the margin"),
      tracked_vs_std("pmr_monotonic_over_pool", "jemalloc", 1.45, 1.3, 1.6, 0, "candidate faster")};
  // Open, paired, beyond its reach: the baseline at 28 of 32 processes leaves it 16 runs.
  model::budget_comparison starved =
      tracked_vs_std("pmr_new_delete", "glibc", 0.996, 0.963, 1.031, 12, "open");
  starved.id = "vs_std vector_push / pmr_new_delete @ glibc";
  starved.base.workload = starved.candidate.workload = "vector_push";
  starved.processes = {28, 15};
  starved.processes_needed = 56;
  b.comparisons.push_back(starved);
  // The heap frame's ring of fifo_uniform (the fixture's bootstrap: 0.93× [0.78–1.11]).
  model::budget_comparison heap =
      tracked_vs_std("malloc", "jemalloc", 1.3, 1.2, 1.4, paired_runs, "candidate faster");
  heap.id = "vs_std fifo_uniform / malloc @ jemalloc";
  heap.metric = "ns_per_pair";
  heap.base = {"heap", "fifo_uniform", "malloc", "glibc"};
  heap.candidate = {"heap", "fifo_uniform", "malloc", "jemalloc"};
  b.comparisons.push_back(heap);
  b.open = 1;
  b.planned_after_first_round.emplace(model::planned_rest{88, 162, 0.15, 12, 32, 8});
  results["budget"] = model::write_json(b);
  return results;
}

// Test plan: where a budgeted run judged a cell against std paired, report.md's headline, its
// workload table, the console and report.html's heat map show the stop rule's paired interval,
// the one its verdict came from, with its verdict and a legend saying so; a cell it did not
// judge paired keeps the bootstrap interval, marked; a run with nothing paired reads as before.
TEST(PairedIntervals, TheReportShowsTheIntervalTheVerdictCameFrom) {
  const json results = with_budget(report_fixture::results(), 8);
  const std::string md = render_report(results);
  const std::string headline =
      md.substr(md.find("## Headline"), md.find("## alloclab vs peers") - md.find("## Headline"));
  EXPECT_NE(headline.find("Intervals: each ratio is the stop rule's paired estimate"),
            std::string::npos)
      << headline;
  EXPECT_NE(headline.find("1.41× [1.40–1.43] decided faster"), std::string::npos) << headline;
  EXPECT_NE(headline.find("0.99× [0.99–1.00] the same within ±2 %"), std::string::npos) << headline;
  EXPECT_NE(headline.find("1.48× [1.20–1.74] decided faster †"), std::string::npos) << headline;
  for (const char* bootstrap : {"1.49× [1.19–1.76]", "0.98× [0.67–1.48]"}) {
    EXPECT_EQ(headline.find(bootstrap), std::string::npos) << bootstrap;
    EXPECT_EQ(md.find(bootstrap), std::string::npos) << bootstrap;  // nor the workload tables
  }
  const std::string workloads = md.substr(md.find("## Workloads"));
  EXPECT_NE(workloads.find("1.41× [1.40–1.43] decided faster"), std::string::npos);
  EXPECT_NE(workloads.find("the stop rule's paired ratio and interval"), std::string::npos);
  const std::string console = render_headline(results);
  EXPECT_NE(console.find("1.41 faster"), std::string::npos) << console;
  EXPECT_NE(console.find("0.99 same"), std::string::npos) << console;
  EXPECT_NE(console.find("the stop rule's paired ratio"), std::string::npos) << console;
  // The heap study's tables: the paired interval where its ring was judged paired.
  const std::string heap = md.substr(md.find("## Heap study"));
  EXPECT_NE(heap.find("1.30× [1.20–1.40] decided faster"), std::string::npos);
  EXPECT_NE(heap.find("the stop rule's paired ratio of glibc's pair cost"), std::string::npos);
  EXPECT_EQ(heap.find("0.93× [0.78–1.11]"), std::string::npos);
  // Why an open comparison stays open: the cap on a cell's processes, not the budget.
  EXPECT_NE(md.find("| needs 56 ring runs, cap 32 (at most 16 here) |"), std::string::npos);
  EXPECT_NE(md.find("1 of them needs more ring runs (or processes) than the cap of 32"),
            std::string::npos);
  const std::string html = render_html_report(results);
  EXPECT_NE(html.find("\"interval_legend\":\"Intervals: each ratio is the stop rule's paired"),
            std::string::npos);
  EXPECT_NE(html.find("\"shown\":{\"high\":1.426,\"low\":1.398,\"paired\":true,\"value\":1.412}"),
            std::string::npos);
}

TEST(PairedIntervals, UnpairedRunsKeepTheirBootstrapIntervals) {
  // `--unpaired` (and the fixed plan of `--full`): the stop rule judged no ring run.
  const json results = with_budget(report_fixture::results(), 0);
  const std::string md = render_report(results);
  EXPECT_EQ(md.find("Intervals: each ratio is the stop rule's paired estimate"), std::string::npos);
  EXPECT_NE(md.find("1.49× [1.19–1.76] decided faster"), std::string::npos);
  EXPECT_NE(md.find("0.98× [0.67–1.48] open (inconclusive)"), std::string::npos);
  EXPECT_EQ(md.find("†"), std::string::npos);
  EXPECT_NE(md.find("0.93× [0.78–1.11]"), std::string::npos);  // the heap study's bootstrap
  const std::string html = render_html_report(results);
  EXPECT_EQ(html.find("\"interval_legend\""), std::string::npos);
  EXPECT_NE(html.find("\"paired\":false"), std::string::npos);
}

const std::filesystem::path try_fixture_dir =
    std::filesystem::path(ALLOCLAB_TEST_DATA) / "try_fixture";

TEST(TryFixture, RendersTheStoredReportAndConsoleByteForByte) {
  const model::document d =
      model::from_json(json::parse(read_file(try_fixture_dir / "results.json")));
  EXPECT_EQ(render_report(d), read_file(try_fixture_dir / "report.md"));
  const auto* part = d.parts.get<program_document_figures>();
  ASSERT_NE(part, nullptr);
  const std::string console = program::render_program_console(part->program);
  EXPECT_EQ(console, read_file(try_fixture_dir / "console.txt"));
  std::istringstream lines(console);
  for (std::string line; std::getline(lines, line);)  // a terminal's 80 columns, UTF-8 counted
    EXPECT_LE(lab::display_width(line), 80u) << line;
}

}  // namespace
}  // namespace alloclab::lab
