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
