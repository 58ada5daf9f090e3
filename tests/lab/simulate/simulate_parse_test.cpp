// The simulation stage's pure parts: Callgrind dumps, the cost formula, strace's syscall counts,
// Spearman's rho. Fixture files only; nothing here runs Valgrind or asserts a timing.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "simulate/cell_run.hpp"
#include "simulate/events.hpp"
#include "simulate/left_out.hpp"
#include "simulate/rank_agreement.hpp"

namespace alloclab::lab::simulate {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(ALLOCLAB_TEST_DATA) + "/simulate/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CallgrindDump, ReadsTheSummaryByEventNameWithTrailingZerosLeftOut) {
  const callgrind_dump dump = read_callgrind_dump(fixture("callgrind.out.region"));
  EXPECT_EQ(client_request_name(dump), "iterations");
  EXPECT_EQ(dump.events.ir, 1203871);
  EXPECT_EQ(dump.events.dr, 401021);
  EXPECT_EQ(dump.events.dw, 200655);
  EXPECT_EQ(dump.events.i1mr, 30);
  EXPECT_EQ(dump.events.d1mr, 1600);
  EXPECT_EQ(dump.events.d1mw, 200);
  EXPECT_EQ(dump.events.ilmr, 21);
  EXPECT_EQ(dump.events.dlmr, 40);
  EXPECT_EQ(dump.events.dlmw, 0);  // left out of the summary line
}

TEST(CallgrindDump, TheSameFileGivesTheSameCountsAndCost) {
  const std::string text = fixture("callgrind.out.region");
  const callgrind_dump a = read_callgrind_dump(text), b = read_callgrind_dump(text);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(simulated_cost(a.events), simulated_cost(b.events));
}

TEST(CallgrindDump, EventsInAnotherOrderAreReadByName) {
  const callgrind_dump dump = read_callgrind_dump(
      "events: Dr Ir Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 7 100 3 1 2 0 1 1 0\n");
  EXPECT_EQ(dump.events.ir, 100);
  EXPECT_EQ(dump.events.dr, 7);
  EXPECT_EQ(client_request_name(dump), std::nullopt);
}

TEST(CallgrindDump, RejectsADumpWithoutTheCacheSimulation) {
  EXPECT_THROW(read_callgrind_dump("events: Ir\nsummary: 100\n"), std::runtime_error);
  EXPECT_THROW(read_callgrind_dump("not a dump"), std::runtime_error);
  EXPECT_THROW(read_callgrind_dump("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
                                   "summary: 1 x 3\n"),
               std::runtime_error);
}

TEST(SimulatedCost, WeighsL1HitsLastLevelHitsAndMemory) {
  const event_counts e = read_callgrind_dump(fixture("callgrind.out.region")).events;
  // accesses 1805547; L1 misses 1830; LL misses 61: L1 hits 1803717, LL hits 1769.
  EXPECT_DOUBLE_EQ(simulated_cost(e), 1803717 + 5 * 1769 + 35 * 61);
  EXPECT_DOUBLE_EQ(simulated_cost(e, {1, 0, 0}), 1803717);
  EXPECT_NE(cost_formula().find("5 × LL hits"), std::string::npos);
}

TEST(SimulatedCost, OfADifferenceOfRegions) {
  event_counts malloc_region, noop_region;
  malloc_region.ir = 1000;
  malloc_region.d1mr = 10;
  malloc_region.dlmr = 2;
  noop_region.ir = 400;
  const event_counts net = malloc_region - noop_region;
  EXPECT_EQ(net.ir, 600);
  EXPECT_DOUBLE_EQ(simulated_cost(net), (600 - 10) + 5 * (10 - 2) + 35 * 2);
}

TEST(StraceCounts, CountsTheMemorySyscallsBetweenTheRegionsMarkers) {
  const auto calls = syscalls_in_region(fixture("strace.region.txt"), "malloc");
  EXPECT_EQ(calls.at("mmap"), 1);
  EXPECT_EQ(calls.at("madvise"), 1);  // its "<... resumed>" line is not a second call
  EXPECT_EQ(calls.at("brk"), 1);
  EXPECT_EQ(calls.at("munmap"), 1);
  EXPECT_EQ(calls.at("mremap"), 1);
  const auto none = syscalls_in_region(fixture("strace.region.txt"), "noop");
  for (const auto& [name, n] : none) EXPECT_EQ(n, 0) << name;
}

TEST(StraceCounts, ARegionWithoutItsMarkersIsAnError) {
  EXPECT_THROW(syscalls_in_region(fixture("strace.region.txt"), "iterations"), std::runtime_error);
  EXPECT_EQ(strace_filter(), "mmap,munmap,mremap,madvise,brk,write");
}

TEST(SpearmanRho, OneForTheSameOrderMinusOneForTheReverse) {
  EXPECT_DOUBLE_EQ(*spearman_rho({1, 2, 3, 4}, {10, 20, 40, 80}), 1.0);
  EXPECT_DOUBLE_EQ(*spearman_rho({1, 2, 3, 4}, {8, 4, 2, 1}), -1.0);
}

TEST(SpearmanRho, TiesTakeTheirMeanRank) {
  EXPECT_EQ(mean_ranks({5, 1, 5, 3}), (std::vector<double>{3.5, 1, 3.5, 2}));
  // ranks x 1 2 3 4 5, y 2 1 4 3 5: sum d^2 = 4, rho = 1 - 6*4/(5*24) = 0.8
  EXPECT_NEAR(*spearman_rho({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-12);
}

TEST(SpearmanRho, UndefinedForFewerThanThreeOrConstantSides) {
  EXPECT_EQ(spearman_rho({1, 2}, {2, 1}), std::nullopt);
  EXPECT_EQ(spearman_rho({1, 1, 1}, {1, 2, 3}), std::nullopt);
  EXPECT_THROW(spearman_rho({1, 2, 3}, {1, 2}), std::invalid_argument);
}

TEST(RepMovsb, TheThresholdIsAddedToTheCellsOwnTunables) {
  alloclab::mallocs::worker_env env;
  env.set = {{"LD_PRELOAD", "libjemalloc.so.2"}};
  env.unset = {"GLIBC_TUNABLES", "MALLOC_ARENA_MAX"};
  const alloclab::mallocs::worker_env plain = without_rep_movsb(env);
  ASSERT_EQ(plain.set.size(), 2u);
  EXPECT_EQ(plain.set[1].first, "GLIBC_TUNABLES");
  EXPECT_EQ(plain.set[1].second, "glibc.cpu.x86_rep_movsb_threshold=4294967295");
  EXPECT_EQ(plain.unset, std::vector<std::string>{"MALLOC_ARENA_MAX"});

  env.set = {{"GLIBC_TUNABLES", "glibc.cpu.x86_memset_non_temporal_threshold=1"}};
  const alloclab::mallocs::worker_env tuned = without_rep_movsb(env);
  ASSERT_EQ(tuned.set.size(), 1u);
  EXPECT_EQ(tuned.set[0].second,
            "glibc.cpu.x86_memset_non_temporal_threshold=1:"
            "glibc.cpu.x86_rep_movsb_threshold=4294967295");
}

}  // namespace
}  // namespace alloclab::lab::simulate
