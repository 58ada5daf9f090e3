// Test plan: the seeds' published tables (claims/seed_claims.json "published_tables") and their
// markdown (render/markdown_seed_tables.cpp).
//   the data names real things: every row's strategy, malloc and workload exist, and the
//     frame is batch or serve (PublishedTablesNameRegisteredCells).
//   a row shows this run's cell, never its placement twin; a missing cell says "not in this
//     run" and a failed one its status (ABatchRowShowsItsOwnCellNotTheTwin).
//   a frame without data renders nothing; the serve frame reads hey's figures
//     (TablesRenderOnlyWhereTheirFrameMeasured).
#include <string>

#include <gtest/gtest.h>

#include "process/malloc_registry.hpp"
#include "render/markdown_sections.hpp"
#include "results/claims.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json table(const std::string& frame) {
  return json::array({{{"id", "t"},
                       {"seed", "004"},
                       {"frame", frame},
                       {"workload", "request_mix"},
                       {"title", "A seed table"},
                       {"about", "About it."},
                       {"fill_with", "alloclab run --workloads request_mix"},
                       {"unit", "us"},
                       {"rows", json::array({{{"variant", "plain"},
                                              {"strategy", "std"},
                                              {"malloc", "glibc"},
                                              {"p50", 8.0},
                                              {"p99", 16.0},
                                              {"throughput_per_s", 1000}},
                                             {{"variant", "pooled"},
                                              {"strategy", "pmr_pool"},
                                              {"malloc", "glibc"},
                                              {"p50", 4.0},
                                              {"p99", 8.0},
                                              {"throughput_per_s", 2000}},
                                             {{"variant", "absent"},
                                              {"strategy", "std"},
                                              {"malloc", "mimalloc"},
                                              {"p50", 9.0},
                                              {"p99", 18.0},
                                              {"throughput_per_s", 500}}})}}});
}

json batch_cell(const std::string& strategy, double p50, bool twin, const char* status = "ok") {
  json timing = nullptr;
  if (std::string(status) == "ok")
    timing = {{"p50_ns", p50}, {"p99_ns", 2 * p50}, {"throughput_per_s", 1e9 / p50}};
  return {{"strategy", strategy}, {"malloc", "glibc"}, {"placement_twin", twin},
          {"status", status},     {"timing", timing},  {"vs_std", nullptr}};
}

json batch_results() {
  return {
      {"workloads", json::array({{{"name", "request_mix"},
                                  {"kind", "lab"},
                                  {"baseline", {{"strategy", "std"}, {"malloc", "glibc"}}},
                                  {"cells", json::array({batch_cell("std", 2345, false),
                                                         batch_cell("pmr_pool", 0, false, "failed"),
                                                         batch_cell("std", 7777, true)})}}})}};
}

std::string rendered(const json& r, const json& tables, const std::string& frame) {
  std::string md;
  markdown::published_tables(md, r, tables, frame);
  return md;
}

TEST(SeedTables, PublishedTablesNameRegisteredCells) {
  const json& tables = seed_claims().at("published_tables");
  ASSERT_FALSE(tables.empty());
  for (const auto& t : tables) {
    const std::string id = t.at("id");
    EXPECT_TRUE(t.at("frame") == "batch" || t.at("frame") == "serve") << id;
    EXPECT_NE(find_workload(t.at("workload")), nullptr) << id;
    EXPECT_TRUE(t.at("unit") == "us" || t.at("unit") == "ms") << id;
    ASSERT_FALSE(t.at("rows").empty()) << id;
    for (const auto& row : t.at("rows")) {
      EXPECT_NE(find_strategy(row.at("strategy")), nullptr) << id << ": " << row;
      EXPECT_NE(heap::find_malloc(row.at("malloc").get<std::string>()), nullptr)
          << id << ": " << row;
      EXPECT_GT(row.at("throughput_per_s").get<double>(), 0) << id;
      EXPECT_LE(row.at("p50").get<double>(), row.at("p99").get<double>()) << id;
    }
  }
}

TEST(SeedTables, ABatchRowShowsItsOwnCellNotTheTwin) {
  const std::string md = rendered(batch_results(), table("batch"), "batch");
  EXPECT_NE(md.find("### A seed table"), std::string::npos) << md;
  EXPECT_NE(md.find("`alloclab run --workloads request_mix`"), std::string::npos) << md;
  EXPECT_NE(md.find("| plain | std @ glibc | 2345 ns | 4690 ns |"), std::string::npos) << md;
  EXPECT_EQ(md.find("7777"), std::string::npos) << md;  // the twin's figure
  EXPECT_NE(md.find("| pooled | pmr_pool @ glibc | **FAILED** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| absent | std @ mimalloc | not in this run |"), std::string::npos) << md;
  // Published figures, and throughput relative to the first row.
  EXPECT_NE(md.find("4.00 µs | 8.00 µs | 2000/s | 2.000× |"), std::string::npos) << md;
}

TEST(SeedTables, TablesRenderOnlyWhereTheirFrameMeasured) {
  EXPECT_EQ(rendered(batch_results(), table("serve"), "serve"), "");
  EXPECT_EQ(rendered(json{{"workloads", json::array()}}, table("batch"), "batch"), "");

  json served = batch_results();
  json cell = {{"strategy", "std"},
               {"malloc", "glibc"},
               {"status", "ok"},
               {"vs_std", nullptr},
               {"hey", {{"p50_ms", 0.25}, {"p99_ms", 1.5}, {"throughput_rps", 31000.0}}}};
  served["serve"] = {{"workloads", json::array({{{"name", "request_mix"},
                                                 {"baseline", {{"strategy", "std"}}},
                                                 {"cells", json::array({cell})}}})}};
  const std::string md = rendered(served, table("serve"), "serve");
  EXPECT_NE(md.find("| plain | std @ glibc | 0.25 ms | 1.50 ms | 31000/s | baseline |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| pooled | pmr_pool @ glibc | not in this run |"), std::string::npos) << md;
}

}  // namespace
}  // namespace alloclab::lab
