// Test plan: report.md is rendered from the results file alone, and the same results render the
// same bytes. tests/data/report_fixture/ holds a --quick run (batch request_mix; heap
// fifo_lognormal and fifo_uniform under glibc and jemalloc; placement costs cut to a few) and the
// report.md that run wrote before the report's statistics moved into the results builder.
//   the fixture renders to that report.md byte for byte (RendersTheStoredReportByteForByte);
//   its heap_retention is what the builder computes from its cells
//     (RetentionSummaryIsTheBuildersOwn);
//   it is a valid results file (FixtureIsSchemaValid).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "render/markdown.hpp"
#include "frames/heap/heap_retention.hpp"
#include "results/schema_check.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
const std::filesystem::path fixture = std::filesystem::path(ALLOCLAB_TEST_DATA) / "report_fixture";

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

json fixture_results() {
  return json::parse(text_of(fixture / "results.json"));
}

TEST(ReportFixture, RendersTheStoredReportByteForByte) {
  const std::string expected = text_of(fixture / "report.md");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(render_report(fixture_results()), expected);
}

TEST(ReportFixture, RetentionSummaryIsTheBuildersOwn) {
  const json r = fixture_results();
  ASSERT_FALSE(r.at("heap_retention").empty());
  EXPECT_EQ(heap_retention_summary(r.at("workloads")), r.at("heap_retention"));
}

TEST(ReportFixture, FixtureIsSchemaValid) {
  const auto problems = schema_violations(fixture_results(), results_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

}  // namespace
}  // namespace alloclab::lab
