// One cell's simulation for real: the lab's worker under Callgrind, under a preloaded malloc
// (jemalloc when installed), which must stay live there (the lab's liveness proof). Skipped
// without Valgrind, and in sanitizer builds (Valgrind cannot run them). No timing is asserted.
#include <chrono>

#include <gtest/gtest.h>

#include <alloclab/build_info.hpp>

#include "frames/heap/cell.hpp"
#include "plan/malloc_choice.hpp"
#include "simulate/cell_run.hpp"

namespace alloclab::lab::simulate {
namespace {
using json = nlohmann::json;

class SimulateCell : public ::testing::Test {
 protected:
  void SetUp() override {
    if (alloclab::build::sanitized) GTEST_SKIP() << "Valgrind cannot run a sanitizer build";
    if (const found_tools found = find_tools(); !found.missing.empty())
      GTEST_SKIP() << found.missing;
    tools_.executable = std::string(ALLOCLAB_ARTIFACT_DIR) + "/alloclab-lab";
  }
  model::simulated_cost simulate(const std::vector<std::string>& args, const malloc_choice& m) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    return simulate_cell({args, environment_for(m), deadline, nullptr}, tools_);
  }
  simulation_tools tools_;
};

TEST_F(SimulateCell, ABatchCellUnderJemallocKeepsItsMallocLiveUnderValgrind) {
  const malloc_choice jemalloc = resolve_mallocs({"jemalloc"}, false).at(0);
  if (!jemalloc.missing.empty()) GTEST_SKIP() << jemalloc.missing;
  const json spec = {{"mode", "simulate"}, {"workload", "vector_push"},
                     {"strategy", "std"},  {"malloc", jemalloc.argument},
                     {"seed", 42},         {"allow_debug", true},
                     {"iterations", 4},    {"warmup", 1}};
  const model::simulated_cost c = simulate({"__cell", spec.dump()}, jemalloc);
  ASSERT_EQ(c.status, "ok") << c.reason.value_or("");
  EXPECT_TRUE(c.malloc_proven);  // the worker's own proof, made under Valgrind
  EXPECT_EQ(c.unit, "iteration");
  EXPECT_EQ(c.units, 4u);
  ASSERT_TRUE(c.per_unit);
  EXPECT_GT(c.per_unit->instructions, 0);
  EXPECT_GE(c.per_unit->instructions + c.per_unit->data_reads + c.per_unit->data_writes,
            c.per_unit->l1_misses);
  EXPECT_GE(c.per_unit->l1_misses, c.per_unit->ll_misses);
  ASSERT_TRUE(c.left_out);  // the normal run of the same region
}

TEST_F(SimulateCell, AHeapCellSubtractsTheNoopKernel) {
  const malloc_choice glibc = resolve_mallocs({}, false).at(0);
  alloclab::heap::cell_spec spec;
  spec.iterations = 5;
  spec.keep_samples = false;
  spec.settle = false;
  json j = alloclab::heap::to_json(spec);
  j["mode"] = "simulate";
  j["warmup"] = 2;
  const model::simulated_cost c = simulate({"__heap-worker", j.dump()}, glibc);
  ASSERT_EQ(c.status, "ok") << c.reason.value_or("");
  EXPECT_TRUE(c.malloc_proven);
  EXPECT_EQ(c.unit, "pair");
  EXPECT_EQ(c.units, 5u * spec.config.batch);
  ASSERT_TRUE(c.per_unit);
  EXPECT_GT(c.per_unit->instructions, 0);  // malloc + free cost more than the NOOP loop
}

TEST_F(SimulateCell, AWorkerThatCannotStartIsAFailureNotAThrow) {
  const malloc_choice glibc = resolve_mallocs({}, false).at(0);
  const model::simulated_cost c = simulate({"__cell", "{not json"}, glibc);
  EXPECT_EQ(c.status, "failed");
  EXPECT_FALSE(c.per_unit);
}

}  // namespace
}  // namespace alloclab::lab::simulate
