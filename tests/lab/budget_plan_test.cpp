// A budgeted run's plan (plan/budget.hpp, plan/seed_plan.hpp): the --budget option, sizing by
// time, the first round, and the default plan's cells for every measurable seed claim.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "plan/budget.hpp"
#include "plan/budget_reserve.hpp"
#include "plan/malloc_choice.hpp"
#include "plan/plan.hpp"
#include "plan/seed_plan.hpp"
#include "results/claims.hpp"
#include "results/peer_verdict.hpp"
#include "schedule/budget_account.hpp"
#include "schedule/tracked_comparisons.hpp"
#include "frames/heap/run_options.hpp"
#include "frames/serve/run_options.hpp"
#include "mallocs/malloc_table.hpp"

namespace alloclab::lab {
namespace {

TEST(Budget, ParsesDurationsAndRefusesTheRest) {
  EXPECT_EQ(parse_budget("5m"), 300);
  EXPECT_EQ(parse_budget("90s"), 90);
  EXPECT_EQ(parse_budget("300"), 300);
  EXPECT_EQ(parse_budget("1h30m"), 5400);
  EXPECT_EQ(parse_budget("1.5m"), 90);
  EXPECT_EQ(parse_budget("0"), 0);
  for (const char* bad : {"", "5x", "-1", "m", "1m30", "0.5s", "8d", "5 m"})
    EXPECT_THROW(parse_budget(bad), usage_error) << bad;
}

// A budget under the smallest is refused naming the smallest (it used to read "not a
// duration"); what a budget buys after the results' reserve is said before the run.
TEST(Budget, SaysTheSmallestBudgetAndWhatABudgetBuys) {
  try {
    parse_budget("0.1s");
    FAIL() << "0.1s was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("the smallest budget, 1s"), std::string::npos) << e.what();
  }
  EXPECT_NE(budget_line(20).find("about 5 s of measuring (15 s of it are kept"), std::string::npos)
      << budget_line(20);
  EXPECT_NE(budget_line(10).find("first process only"), std::string::npos) << budget_line(10);
}

TEST(Budget, IsTheDefaultUnlessTheRunIsSizedOrHasAFrameWithoutAStopRule) {
  const std::vector<frame> batch = {frame::batch};
  run_request r;
  EXPECT_EQ(resolve_budget(r, batch), default_budget_seconds);
  EXPECT_EQ(resolve_budget(r, {frame::batch, frame::heap, frame::serve}), default_budget_seconds);
  EXPECT_EQ(resolve_budget(r, {frame::memory}), 0);  // no stop rule: the fixed plan
  r.full = true;
  EXPECT_EQ(resolve_budget(r, batch), 0);
  r.budget = "5m";
  EXPECT_THROW(resolve_budget(r, batch), usage_error);  // --full --budget 5m
  r.full = false;
  EXPECT_EQ(resolve_budget(r, batch), 300);
  EXPECT_THROW(resolve_budget(r, {frame::memory}), usage_error);
  r.iterations = 100;  // sizes and a budget contradict each other
  EXPECT_THROW(resolve_budget(r, batch), usage_error);
  r.budget = "0";
  EXPECT_EQ(resolve_budget(r, batch), 0);
  r.budget.reset();
  EXPECT_EQ(resolve_budget(r, batch), 0);  // sizes given: the fixed plan, as before
  run_request quick;
  quick.quick = true;
  EXPECT_EQ(resolve_budget(quick, batch), 0);
}

TEST(Budget, SamplesAreSizedByTimeAboveTheWorkloadsFloor) {
  EXPECT_EQ(repetition_floor(20e6, 10e3), 100u);  // a p99 needs 100 samples
  EXPECT_EQ(repetition_floor(20e6, 1e6), 100u);   // 1 ms: 100 last 5x the target, still fine
  EXPECT_EQ(repetition_floor(20e6, 2e6), 50u);    // 2 ms: 100 would stretch it past 5x
  EXPECT_EQ(repetition_floor(20e6, 100e6), 5u);   // 100 ms: never fewer than 5
  EXPECT_EQ(repetition_floor(20e6, 0), min_samples_per_repetition);
  EXPECT_EQ(samples_for_time(20e6, 2e3, 100), 5000u);   // 2 µs: 10 000 wanted, capped
  EXPECT_EQ(samples_for_time(20e6, 10e3, 100), 2000u);  // 10 µs: the target's worth
  // A busy moment made this process's warm-up slow: the workload's floor still holds.
  EXPECT_EQ(samples_for_time(20e6, 400e3, 100), 100u);
  EXPECT_EQ(samples_for_time(20e6, 2e6, 50), 50u);
  EXPECT_EQ(samples_for_time(20e6, 0, 100), 100u);
}

TEST(Budget, ProcessesGrowByHalfAtEachLookUpToTheMostTheBudgetAllows) {
  EXPECT_EQ(processes_after(2, 8, 0), 2u);
  EXPECT_EQ(processes_after(2, 8, 1), 3u);
  EXPECT_EQ(processes_after(2, 8, 2), 5u);
  EXPECT_EQ(processes_after(2, 8, 3), 8u);
  EXPECT_EQ(processes_after(2, 8, 9), 8u);
  EXPECT_EQ(looks_to_reach(2, 8), 4u);  // a 5-minute budget: K = 4
  EXPECT_EQ(looks_to_reach(5, 8), 2u);  // a served variant's five servers, then eight
  EXPECT_EQ(looks_to_reach(1, 1), 1u);  // the placement twin: its first round only
  EXPECT_EQ(max_processes_for(300), 8u);
  EXPECT_EQ(max_processes_for(900), 24u);
  EXPECT_EQ(max_processes_for(7200), 32u);
  EXPECT_EQ(looks_to_reach(2, max_processes_for(900)), 7u);  // 2 3 5 8 12 18 24
}

// The looks and the most processes a cell may get follow the budget left after the first round,
// at 0.15 of the first round's seconds per later round (the measured cost of a round).
TEST(Budget, TheRestOfTheRunIsPlannedFromTheFirstRoundsCost) {
  const rest_of_budget quiet = plan_after_first_round(130, 117, 2);  // 19.5 s a round: 6 rounds
  EXPECT_EQ(quiet.rounds, 6u);
  EXPECT_EQ(quiet.max_processes, 27u);  // 2 3 5 8 12 18 27
  EXPECT_EQ(quiet.looks, 7u);
  const rest_of_budget long_budget = plan_after_first_round(130, 800, 2);
  EXPECT_EQ(long_budget.max_processes, 32u);  // at most 32 processes a cell
  EXPECT_EQ(long_budget.looks, 8u);
  const rest_of_budget busy = plan_after_first_round(220, 60, 2);  // 33 s a round: 1 round
  EXPECT_EQ(busy.max_processes, 3u);
  EXPECT_EQ(busy.looks, 2u);
  const rest_of_budget spent = plan_after_first_round(280, -5, 2);
  EXPECT_EQ(spent.max_processes, 3u);  // a round is planned; the budget check stops it
  EXPECT_EQ(spent.looks, 2u);
}

TEST(Budget, TheFirstRoundGivesEveryCellItsFirstProcessesInShuffledPasses) {
  std::vector<budget_cell> cells(4);
  cells[3].first_processes = 5;  // a serve cell: five fresh servers
  cells[3].repetitions = 1;
  const std::vector<task> round = first_round(cells, 7);
  ASSERT_EQ(round.size(), 2u * 3 + 5);
  std::vector<std::size_t> per_cell(4, 0);
  for (const task& t : round) {
    EXPECT_EQ(t.part, per_cell[t.cell]++);  // parts in order, one per pass
    EXPECT_EQ(t.repetitions, cells[t.cell].repetitions);
  }
  EXPECT_EQ(per_cell, (std::vector<std::size_t>{2, 2, 2, 5}));
  EXPECT_EQ(first_round(cells, 7).front().cell, round.front().cell);  // seeded
}

TEST(Budget, TheAccountsConfidenceIsTheFinalLooksSpendingTheRest) {
  // A run's last look is its final one: it spends what the looks it never took would have had.
  const stop_rule four = rule_with_looks(4);
  std::vector<round_account> rounds{{1, 10, 1.0, 0, 3}};
  EXPECT_NEAR(rule_at_final_look(four, rounds).confidence(),
              four.at_look(1).spending_the_rest().confidence(), 1e-15);
  EXPECT_NEAR(1 - rule_at_final_look(four, rounds).confidence(), four.alpha, 1e-15);
  rounds.push_back({2, 5, 2.0, 1, 2});
  EXPECT_NEAR(1 - rule_at_final_look(four, rounds).confidence(), four.alpha * 14 / 15, 1e-15);
  EXPECT_LT(rule_at_final_look(four, rounds).confidence(), four.at_look(2).confidence());
  EXPECT_NEAR(rule_at_final_look(four, rounds).alpha, four.alpha, 1e-15);  // the stated alpha
  EXPECT_NEAR(rule_at_final_look(four, {}).confidence(), four.confidence(), 1e-15);
}

TEST(SeedPlan, EveryMeasurableClaimGetsItsCells) {
  const std::vector<claim_cell> cells = cells_for_claims(seed_claims());
  const auto has = [&](const std::string& w, const std::string& s, const std::string& m, frame f) {
    return std::any_of(cells.begin(), cells.end(), [&](const claim_cell& c) {
      return c.workload == w && c.strategy == s && c.malloc == m && c.frame == f;
    });
  };
  EXPECT_TRUE(has("request_mix", "std", "mimalloc", frame::batch));  // 004: batch under mimalloc
  EXPECT_TRUE(has("request_mix", "pmr_monotonic_over_pool", "glibc", frame::serve));
  EXPECT_TRUE(has("request_mix", "std", "glibc", frame::serve));
  for (const char* m : {"glibc", "jemalloc", "mimalloc"})  // 004: retention
    for (const char* w : {"fifo_uniform", "fifo_exponential", "fifo_lognormal"})
      EXPECT_TRUE(has(w, "malloc", m, frame::heap)) << w << " @ " << m;
  for (const char* w : {"fifo_exponential", "fifo_lognormal"})  // 003: dlmalloc vs glibc
    EXPECT_TRUE(has(w, "malloc", "dlmalloc", frame::heap)) << w;
  EXPECT_FALSE(std::any_of(cells.begin(), cells.end(), [](const claim_cell& c) {
    return c.workload.empty();  // seed 000's Cortex-M claim is not measurable here
  }));
}

// One ratio claim about request_mix, std against pmr_monotonic, measured in `frame`.
nlohmann::json claims_in_frame(const nlohmann::json& frame) {
  nlohmann::json claim = {{"id", "c1"},
                          {"workload", "request_mix"},
                          {"baseline", "std"},
                          {"candidate", "pmr_monotonic"},
                          {"metric", "speedup_p50"}};
  if (!frame.is_null()) claim["frame"] = frame;
  return {{"claims", nlohmann::json::array({claim})}};
}

// The message cells_for_claims refuses `claims` with ("" when it takes them).
std::string refusal_of(const nlohmann::json& claims) {
  try {
    cells_for_claims(claims);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SeedPlan, AClaimIsMeasuredInTheFrameItNames) {
  // The frame comes from the claim's "frame", not from its metric's name.
  for (const frame f : {frame::batch, frame::serve}) {
    const std::vector<claim_cell> cells = cells_for_claims(claims_in_frame(to_string(f)));
    ASSERT_EQ(cells.size(), 2u);
    for (const claim_cell& c : cells) EXPECT_EQ(c.frame, f) << to_string(f);
  }
  for (const auto& claim : seed_claims().at("claims")) {
    if (claim.value("measurable", true)) {
      EXPECT_EQ(to_string(claim_frame(claim)), claim.at("frame").get<std::string>());
    }
  }
}

TEST(SeedPlan, AClaimWhoseFrameNamesNoFrameIsRefused) {
  // Every frame `run` plans, as the table lists them: batch, heap, memory, serve, replay, and
  // any frame added after them.
  std::string frames;
  for (const std::string& name : frame_names()) frames += (frames.empty() ? "" : ", ") + name;
  ASSERT_EQ(frames.rfind("batch, heap, memory, serve, replay", 0), 0u) << frames;
  EXPECT_EQ(refusal_of(claims_in_frame("nope")),
            "seed claim 'c1': frame 'nope' names no frame; frames: " + frames);
  // The program frame is measured by `alloclab try`, never planned: no claim cells in it.
  EXPECT_EQ(refusal_of(claims_in_frame("program")),
            "seed claim 'c1': frame 'program' names no frame; frames: " + frames);
  EXPECT_EQ(refusal_of(claims_in_frame(nullptr)),
            "seed claim 'c1' names no frame: give it \"frame\", one of " + frames);
  EXPECT_EQ(refusal_of(claims_in_frame(3)),
            "seed claim 'c1' names no frame: give it \"frame\", one of " + frames);
  // A frame that exists but does not measure the claim's workload.
  EXPECT_EQ(refusal_of(claims_in_frame("heap")),
            "seed claim 'c1': frame 'heap' does not measure workload 'request_mix'");
  EXPECT_EQ(refusal_of(claims_in_frame("batch")), "");
}

TEST(SeedPlan, TheDefaultRunIsBudgetedAndMeasuresTheClaimsCells) {
  const run_plan plan = make_plan(run_request{}, false);
  EXPECT_EQ(plan.sizes.budget_seconds, default_budget_seconds);
  EXPECT_TRUE(has_frame(plan, frame::heap));
  EXPECT_TRUE(has_frame(plan, frame::serve));
  EXPECT_EQ(plan.mallocs.front().label, "glibc");  // the baseline stays first
  std::set<std::string> mallocs;
  for (const auto& m : plan.mallocs) mallocs.insert(m.label);
  EXPECT_EQ(mallocs.count("jemalloc") + mallocs.count("mimalloc"), 2u);
  std::size_t serve = 0, lab_glibc = 0, twin = 0;
  for (const cell_spec& c : plan.cells) {
    serve += c.frame == frame::serve;
    lab_glibc += c.frame == frame::batch && c.malloc.label == "glibc";
    twin += c.copy_cliff_removed;
  }
  EXPECT_EQ(serve, 2u);
  EXPECT_EQ(lab_glibc, plan.workloads.lab.size() * plan.strategies.size());
  EXPECT_GT(heap_sizes_of(plan).retention_horizon_s, 10);  // past jemalloc's 10 s decay
  EXPECT_TRUE(serve_sizes_of(plan).hey_only);
  // The schedule is the first round: two processes a cell, five servers a served variant, one
  // process a placement twin's cell (for the placement analysis alone).
  std::size_t served = 0;
  for (const task& t : plan.schedule) served += plan.cells[t.cell].frame == frame::serve;
  EXPECT_EQ(plan.schedule.size(), 2 * (plan.cells.size() - serve - twin) + 5 * serve + twin);
  EXPECT_EQ(served, 10u);
}

// Throwaway glibc entries a test adds to the malloc table, one per name.
std::vector<std::unique_ptr<mallocs::scoped_malloc_entry>> throwaway_mallocs(
    const std::vector<std::string_view>& names) {
  std::vector<std::unique_ptr<mallocs::scoped_malloc_entry>> added;
  for (const std::string_view name : names)
    added.push_back(std::make_unique<mallocs::scoped_malloc_entry>(
        mallocs::malloc_entry{name,
                              "glibc under another name (a test's throwaway entry)",
                              {"libc6", mallocs::package_route::base_system, {}},
                              {},
                              {},
                              "libc.so.6",
                              {{"mallinfo2", "libc.so.6"}},
                              false,
                              {},
                              {nullptr, "a throwaway has none"},
                              purge_kind::none}));
  return added;
}

// Blocks of every small size, freed so that glibc hands the next two of each size out at falling
// addresses (its per-size caches are last in, first out): storage the malloc table takes next
// lies below storage it took before, as it does when a process built the table on a used heap.
// (Under another malloc, e.g. a sanitizer's, the addresses may not fall: the test then checks the
// order alone.)
class falling_addresses {
 public:
  falling_addresses() {
    held_.reserve(1024);
    for (std::size_t size = 16; size <= 1024; size += 16) {
      for (int i = 0; i < 7 + 2; ++i) held_.push_back(std::malloc(size));  // 7 empty the cache
      void* const higher = std::max(held_.end()[-1], held_.end()[-2], std::less<>());
      void* const lower = std::min(held_.end()[-1], held_.end()[-2], std::less<>());
      held_.resize(held_.size() - 2);
      std::free(lower);
      std::free(higher);  // handed out first
    }
  }
  ~falling_addresses() {
    for (void* p : held_) std::free(p);
  }
  falling_addresses(const falling_addresses&) = delete;
  falling_addresses& operator=(const falling_addresses&) = delete;

 private:
  std::vector<void*> held_;
};

// The mallocs a claim adds join in table order, wherever the table's entries lie in memory (the
// default plan put jemalloc before glibc once the table had been built on a used heap, so it
// depended on which tests ran before it).
TEST(SeedPlan, ClaimMallocsJoinInTableOrderWhereverTheTableLives) {
  const std::vector<std::string_view> names = {"throwaway_1", "throwaway_2", "throwaway_3",
                                               "throwaway_4", "throwaway_5", "throwaway_6"};
  std::vector<std::unique_ptr<mallocs::scoped_malloc_entry>> added;
  ASSERT_FALSE(mallocs::malloc_registry().empty());  // built before the heap is arranged
  {
    const falling_addresses heap;
    added = throwaway_mallocs(names);
  }
  nlohmann::json claim = {{"id", "c1"},
                          {"frame", "heap"},
                          {"metric", "returns_memory"},
                          {"workloads", {"fifo_uniform"}},
                          {"retains", nlohmann::json::array()}};
  for (auto name = names.rbegin(); name != names.rend(); ++name)
    claim["retains"].push_back(std::string(*name));
  claim["returns"] = {"glibc"};
  run_plan plan;
  plan.mallocs = resolve_mallocs({}, false);
  add_claim_cells(plan, {{"claims", nlohmann::json::array({claim})}});
  std::vector<std::string> order;
  for (const malloc_choice& m : plan.mallocs) order.push_back(m.label);
  std::vector<std::string> expected = {"glibc"};
  expected.insert(expected.end(), names.begin(), names.end());
  EXPECT_EQ(order, expected);
}

// Selection and multiplicity: an "any malloc" claim holds when any of its candidates does, and a
// peer check picks the fastest alloclab strategy first; each is judged at alpha / candidates.
TEST(SeedPlan, PicksAmongCandidatesAreJudgedAtAlphaOverTheirNumber) {
  const run_plan plan = make_plan(run_request{}, false);
  // "CLAIM @ MALLOC" names an any-malloc claim's candidate; "CLAIM @ MALLOC vs WORKLOAD" is one of
  // the comparisons an under-every-malloc claim needs all of (no pick: no correction).
  const auto any_malloc = [](const tracked_comparison& c) {
    return c.kind == "claim" && c.id.find(" @ ") != std::string::npos &&
           c.id.find(" vs ") == std::string::npos;
  };
  std::map<std::string, std::size_t> per_claim;
  const auto planned = planned_comparisons(plan, seed_claims());
  for (const tracked_comparison& c : planned)
    if (any_malloc(c)) ++per_claim[c.id.substr(0, c.id.find(" @ "))];
  // Seed 003's claims named any malloc until issue 40 put the seed's own dlmalloc in their place;
  // a claim naming several candidates is still judged at alpha / their number (claims_test).
  for (const tracked_comparison& c : planned) {
    const auto found =
        any_malloc(c) ? per_claim.find(c.id.substr(0, c.id.find(" @ "))) : per_claim.end();
    if (c.kind == "claim" && found != per_claim.end()) {
      EXPECT_GT(found->second, 1u) << c.id;
      EXPECT_EQ(c.candidates, found->second) << c.id;
    } else {
      EXPECT_EQ(c.candidates, 1u) << c.id;
    }
  }
  // Peers: every batch cell of the first workload under glibc measured once.
  budget_state state(budget_cells(plan), rule_with_looks(4));
  std::size_t alloclab = 0;
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const cell_spec& c = plan.cells[i];
    if (c.frame != frame::batch || c.workload != plan.workloads.lab.front() ||
        c.malloc.label != "glibc" || c.copy_cliff_removed)
      continue;
    alloclab += side_of(c.strategy) == peer_side::alloclab;
    state.add_process(i, {{"p50", {100.0 + static_cast<double>(i)}}}, 1);
  }
  const auto peers = peer_comparisons(plan, state);
  ASSERT_FALSE(peers.empty());
  ASSERT_GT(alloclab, 1u);
  for (const tracked_comparison& c : peers) EXPECT_EQ(c.candidates, alloclab) << c.id;
}

TEST(SeedPlan, SizesOrASelectionMeasureWhatWasAsked) {
  run_request sized;
  sized.iterations = 10;
  const run_plan a = make_plan(sized, false);
  EXPECT_FALSE(has_frame(a, frame::heap));
  EXPECT_EQ(a.sizes.budget_seconds, 0);
  run_request full;
  full.full = true;
  const run_plan b = make_plan(full, false);
  EXPECT_TRUE(has_frame(b, frame::heap));  // --full: the same cells, the fixed plan's sizes
  EXPECT_EQ(b.sizes.budget_seconds, 0);
  run_request selected;
  selected.workloads = {"trade_batch"};
  const run_plan c = make_plan(selected, false);
  EXPECT_EQ(c.mallocs.size(), 1u);
  EXPECT_GT(c.sizes.budget_seconds, 0);  // a selection is budgeted too
}

}  // namespace
}  // namespace alloclab::lab
