// The simulated costs in results.json and report.md: ratios to the baseline cell, the rank
// agreement with the timed ratios, and the second opinion where the timing is inconclusive.
#include <gtest/gtest.h>

#include "model/document.hpp"
#include "simulate/report_markdown.hpp"
#include "simulate/results.hpp"

namespace alloclab::lab::simulate {
namespace {
using json = nlohmann::json;

// A cell `strategy`@glibc whose timed speedup is `timed` in [low, high] (none for the baseline).
model::cell timed_cell(const std::string& strategy, std::optional<double> timed, double low = 0,
                       double high = 0) {
  model::cell c;
  c.head.strategy = strategy;
  c.head.malloc = "glibc";
  c.head.status = "ok";
  if (timed) {
    c.vs_std.emplace();
    c.vs_std->speedup_p50 = timed;
    c.vs_std->intervals.speedup_p50 = model::interval{low, high};
    c.vs_std->mark = "n.s.";
  }
  return c;
}

cell_simulation simulated(const std::string& strategy, double cost) {
  model::simulated_cost s;
  s.status = "ok";
  s.unit = "iteration";
  s.units = 64;
  s.per_unit.emplace();
  s.per_unit->cost = cost;
  s.malloc_proven = true;
  return {"w", strategy, "glibc", s};
}

model::document results_of_four_cells() {
  model::workload w;
  w.name = "w";
  w.baseline = {"std", "glibc"};
  w.cells = {timed_cell("std", std::nullopt), timed_cell("a", 2.0, 1.8, 2.2),
             timed_cell("b", 1.01, 0.9, 1.1), timed_cell("c", 0.5, 0.4, 0.6)};
  model::document d;
  d.workloads.push_back(std::move(w));
  return d;
}

run_simulation simulation_of(const std::vector<cell_simulation>& cells) {
  run_simulation simulation;
  simulation.facts.cells_planned = 4;
  simulation.facts.cells_simulated = cells.size();
  simulation.cells = cells;
  return simulation;
}

TEST(SimulationResults, RatiosAreTheBaselinesCostOverTheCells) {
  model::document results = results_of_four_cells();
  add_simulation(results, simulation_of({simulated("std", 1000), simulated("a", 400),
                                         simulated("b", 800), simulated("c", 2500)}));
  const std::vector<model::cell>& cells = results.workloads[0].cells;
  EXPECT_FALSE(cells[0].simulated->ratio_vs_baseline);
  EXPECT_DOUBLE_EQ(*cells[1].simulated->ratio_vs_baseline, 2.5);
  EXPECT_DOUBLE_EQ(*cells[3].simulated->ratio_vs_baseline, 0.4);
  const model::rank_agreement& agreement = results.simulation->agreement;
  EXPECT_EQ(agreement.cells, 3u);
  ASSERT_TRUE(agreement.rho);
  EXPECT_DOUBLE_EQ(*agreement.rho, 1.0);  // same order: c < b < a
}

TEST(SimulationResults, ACellWithoutASimulationGetsNoPartAndNoRatio) {
  model::document results = results_of_four_cells();
  add_simulation(results, simulation_of({simulated("a", 400)}));  // no baseline simulated
  const std::vector<model::cell>& cells = results.workloads[0].cells;
  EXPECT_FALSE(cells[0].simulated);
  EXPECT_FALSE(cells[1].simulated->ratio_vs_baseline);
  EXPECT_FALSE(results.simulation->agreement.rho);
}

TEST(SimulationResults, NothingSimulatedAddsNothing) {
  model::document results = results_of_four_cells();
  add_simulation(results, std::nullopt);
  EXPECT_FALSE(results.simulation);
}

TEST(SimulationReport, GivesTheSimulatedRatioWhereTheTimingIsInconclusive) {
  model::document d = results_of_four_cells();
  add_simulation(d, simulation_of({simulated("std", 1000), simulated("a", 400), simulated("b", 800),
                                   simulated("c", 2500)}));
  EXPECT_TRUE(timing_inconclusive(d.workloads[0].cells[2]));   // b: [0.9, 1.1]
  EXPECT_FALSE(timing_inconclusive(d.workloads[0].cells[1]));  // a: [1.8, 2.2]
  std::string md;
  simulated_cost_section(md, d);
  EXPECT_NE(md.find("## Simulated cost"), std::string::npos);
  EXPECT_NE(md.find("| w | b @ glibc | 1.01× [0.90–1.10] | 1.25× | simulated: the cell is "
                    "cheaper than the baseline |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| w | a @ glibc | 2.00× [1.80–2.20] | 2.50× | simulated"), std::string::npos);
  EXPECT_NE(md.find("Spearman's ρ = 1.00 over 3 cells"), std::string::npos);
}

}  // namespace
}  // namespace alloclab::lab::simulate
