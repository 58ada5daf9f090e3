// Test plan: the seeds' published tables (claims/seed_claims.json "published_tables") and their
// markdown (render/markdown_seed_tables.cpp).
//   the data names real things: every row's strategy, malloc and workload exist, and the
//     frame is batch or serve (PublishedTablesNameRegisteredCells).
//   a row shows this run's cell, never its placement twin; a missing cell says "not in this
//     run" and a failed one its status (ABatchRowShowsItsOwnCellNotTheTwin).
//   a frame without the table's workload renders no table; the serve frame reads hey's figures
//     (TablesRenderOnlyWhereTheirFrameMeasured).
// The tables are read from the results model (model::document), as the report reads them.
#include <string>

#include <gtest/gtest.h>

#include "frames/serve/figures.hpp"
#include "model/document.hpp"
#include "mallocs/malloc_table.hpp"
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

model::cell_head head(const std::string& strategy, bool twin, const char* status) {
  model::cell_head h;
  h.strategy = strategy;
  h.malloc = "glibc";
  h.placement_twin = twin;
  h.status = status;
  return h;
}

model::cell batch_cell(const std::string& strategy, double p50, bool twin,
                       const char* status = "ok") {
  model::cell c;
  c.head = head(strategy, twin, status);
  if (std::string(status) == "ok") {
    c.timing.emplace();
    c.timing->p50_ns = p50;
    c.timing->p99_ns = 2 * p50;
    c.timing->throughput_per_s = 1e9 / p50;
  }
  return c;
}

model::document batch_results(const std::string& table_frame) {
  model::document r;
  model::workload w;
  w.name = "request_mix";
  w.kind = "lab";
  w.baseline = {"std", "glibc"};
  w.cells = {batch_cell("std", 2345, false), batch_cell("pmr_pool", 0, false, "failed"),
             batch_cell("std", 7777, true)};
  r.workloads.push_back(w);
  r.published_tables = model::read_json<std::vector<model::published_table>>(table(table_frame));
  return r;
}

std::string batch_rendered(const model::document& r) {
  std::string md;
  markdown::batch_section(md, r);
  return md;
}

std::string serve_rendered(const model::document& r) {
  std::string md;
  markdown::serve_section(md, r);
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
      EXPECT_NE(mallocs::find_malloc(row.at("malloc").get<std::string>()), nullptr)
          << id << ": " << row;
      EXPECT_GT(row.at("throughput_per_s").get<double>(), 0) << id;
      EXPECT_LE(row.at("p50").get<double>(), row.at("p99").get<double>()) << id;
    }
  }
}

TEST(SeedTables, ABatchRowShowsItsOwnCellNotTheTwin) {
  const std::string md = batch_rendered(batch_results("batch"));
  EXPECT_EQ(md.find("## The seeds' published tables, batch frame\n\n### A seed table"), 0u) << md;
  EXPECT_NE(md.find("`alloclab run --workloads request_mix`"), std::string::npos) << md;
  EXPECT_NE(md.find("| plain | std @ glibc | 2345 ns | 4690 ns |"), std::string::npos) << md;
  EXPECT_EQ(md.find("7777"), std::string::npos) << md;  // the twin's figure
  EXPECT_NE(md.find("| pooled | pmr_pool @ glibc | **FAILED** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| absent | std @ mimalloc | not in this run |"), std::string::npos) << md;
  // Published figures, and throughput relative to the first row.
  EXPECT_NE(md.find("4.00 µs | 8.00 µs | 2000/s | 2.000× |"), std::string::npos) << md;
}

TEST(SeedTables, TablesRenderOnlyWhereTheirFrameMeasured) {
  EXPECT_EQ(batch_rendered(batch_results("serve")), "");
  model::document no_workload = batch_results("batch");
  no_workload.workloads.clear();
  EXPECT_EQ(batch_rendered(no_workload), "");

  model::document served = batch_results("serve");
  EXPECT_EQ(serve_rendered(served), "") << "no serve section without the serve frame";
  serve_cell cell;
  cell.head = head("std", false, "ok");
  cell.hey.emplace();
  cell.hey->p50_ms = 0.25;
  cell.hey->p99_ms = 1.5;
  cell.hey->throughput_rps = 31000.0;
  serve_document_figures figures;
  figures.serve.emplace();
  figures.serve->connections = 1;
  figures.serve->workloads.push_back({"request_mix", {"std", "glibc"}, {cell}});
  served.parts.set(figures);
  std::string md = serve_rendered(served);
  EXPECT_NE(md.find("| plain | std @ glibc | 0.25 ms | 1.50 ms | 31000/s | baseline |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| pooled | pmr_pool @ glibc | not in this run |"), std::string::npos) << md;

  figures.serve->workloads[0].name = "another";
  served.parts.set(figures);
  md = serve_rendered(served);
  EXPECT_NE(md.find("## Batch and serve"), std::string::npos) << md;
  EXPECT_EQ(md.find("### A seed table"), std::string::npos) << md;
}

}  // namespace
}  // namespace alloclab::lab
