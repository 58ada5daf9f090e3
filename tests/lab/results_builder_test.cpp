// Test plan: results/results_builder's comparisons (add_comparisons) on hand-made cells.
//   a heap-study cell's pair-cost ratio against the baseline malloc carries its bootstrap
//     interval, and a lab cell has none (HeapCellsCompareTheirPairCostWithAnInterval).
#include <gtest/gtest.h>

#include "results/results_builder.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

json timed(const std::string& malloc, double ns, json ns_per_pair) {
  const std::vector<double> medians = {ns * 0.99, ns, ns * 1.01, ns, ns};
  return {{"strategy", "malloc"},
          {"malloc", malloc},
          {"status", "ok"},
          {"timing",
           {{"p50_ns", ns},
            {"mean_ns", ns},
            {"p99_ns", 2 * ns},
            {"jitter_ns", ns},
            {"cv", 0.1},
            {"repetition_medians_ns", medians},
            {"repetition_means_ns", medians}}},
          {"ns_per_pair", std::move(ns_per_pair)}};
}

json pairs(double mean) {
  return {{"mean", mean},
          {"per_repetition", {mean * 0.98, mean, mean * 1.02, mean * 0.99, mean * 1.01}}};
}

TEST(ResultsBuilder, HeapCellsCompareTheirPairCostWithAnInterval) {
  json heap = {{"baseline", {{"strategy", "malloc"}, {"malloc", "glibc"}}},
               {"cells", json::array({timed("glibc", 1000, pairs(100)),
                                      timed("jemalloc", 500, pairs(50))})}};
  add_comparisons(heap, true);
  const json& vs = heap["cells"][1]["vs_std"];
  ASSERT_TRUE(vs.is_object());
  EXPECT_NEAR(vs.at("speedup_ns_per_pair").get<double>(), 2.0, 1e-9);
  const json& range = vs.at("intervals").at("speedup_ns_per_pair");
  ASSERT_TRUE(range.is_object()) << vs;
  // Every resample of glibc's per-repetition costs over jemalloc's lies in [0.98/1.02, 1.02/0.98] × 2.
  EXPECT_GE(range["low"].get<double>(), 2 * 0.98 / 1.02);
  EXPECT_LE(range["high"].get<double>(), 2 * 1.02 / 0.98);
  EXPECT_LE(range["low"].get<double>(), 2.0);
  EXPECT_GE(range["high"].get<double>(), 2.0);

  json lab = {
      {"baseline", {{"strategy", "malloc"}, {"malloc", "glibc"}}},
      {"cells", json::array({timed("glibc", 1000, nullptr), timed("jemalloc", 500, nullptr)})}};
  add_comparisons(lab, true);
  EXPECT_FALSE(lab["cells"][1]["vs_std"].contains("speedup_ns_per_pair"));
}

}  // namespace
}  // namespace alloclab::lab
