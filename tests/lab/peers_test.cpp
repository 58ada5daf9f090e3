// Test plan: the peer strategies, the multithreaded workloads and the peer verdict.
//
// | component                                   | test                                                   |
// |---------------------------------------------|--------------------------------------------------------|
// | every strategy x every suite workload       | StrategyConformance.EveryStrategyRunsEveryWorkloadOrSaysWhyNot |
// |   (ok with std's checksum, forbidden        |                                                        |
// |   fallbacks never touch the heap; or n/a    |                                                        |
// |   with a reason)                            |                                                        |
// | alloclab_multipool, alloclab_multipool_static | StrategyConformance.EveryWorkloadHasAMultipoolNumber |
// | thread_safety_reason, workload_entry::threads | StrategyConformance.MultithreadedWorkloadsRunThreadSafeStrategiesOnly |
// | message_queue_mt, request_mix_mt checksums  | StrategyConformance.MultithreadedChecksumsAgreeAcrossStrategies |
// | foonathan_stack / boost_pmr_monotonic reset | StrategyConformance.ArenaPeersResetEveryIteration      |
// | mimalloc_heap: dlopen leaves malloc alone   | MimallocHeap.LoadingItLeavesMallocToGlibc              |
// | side_of: the entry's side                   | PeerVerdict.SidesAreTheEntriesOwn                      |
// | peer_verdicts: met / missed / not_judged    | PeerVerdict.* (synthetic results)                      |
// | each peer ratio's bootstrap interval        | PeerVerdict.MetWhenTheBestAlloclabBeats...             |
// | end to end: glibc cell proof, not_installed | PeersCli.GlibcCellStaysGlibcBesideMimallocHeap,        |
// |   rows, report section                     | PeersCli.MissingMimallocGivesNotInstalledRows          |
//
// No test asserts a timing.
#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "mallocs/liveness.hpp"
#include "mallocs/malloc_table.hpp"
#include "measure/build_guard.hpp"
#include "frames/batch/runner.hpp"
#include "results/peer_verdict.hpp"
#include "results/schema_check.hpp"
#include "strategies/strategy.hpp"
#include "workloads/workload.hpp"
#include "run_support.hpp"

namespace alloclab::lab {
namespace {
using run_support::allow_debug;
using run_support::ignore_progress;
using run_support::sanitized;

using json = nlohmann::json;

bool mimalloc_present() {
  const strategy_entry* s = find_strategy("mimalloc_heap");
  return s != nullptr && s->not_installed != nullptr && s->not_installed().empty();
}

// Every registered strategy that can run in this process.
std::vector<std::string> runnable_strategies() {
  std::vector<std::string> names;
  for (const auto& s : strategy_registry()) {
    if (s.name == "mimalloc_heap" && (!mimalloc_present() || sanitized())) continue;
    names.push_back(s.name);
  }
  return names;
}

// The default suite: every registered workload but the test-only ones.
std::vector<std::string> suite_workloads() {
  std::vector<std::string> names;
  for (const auto& w : workload_registry())
    if (w.name.rfind("test_", 0) != 0) names.push_back(w.name);
  return names;
}

run_config peer_config(const std::string& workload, std::vector<std::string> strategies) {
  run_config config;
  config.workloads = {workload};
  config.strategies = std::move(strategies);
  config.samples_per_repetition = 3;
  config.repetitions = 1;
  config.counted_iterations = 3;
  config.batch_size = 1;
  return config;
}

const cell_measurement& strategy_cell_of(const workload_measurement& w,
                                         const std::string& strategy) {
  for (const auto& c : w.cells)
    if (c.strategy == strategy) return c;
  throw std::runtime_error("no cell " + strategy);
}

// One run per workload with every strategy: the runner itself throws checksum_mismatch if any
// strategy builds another result than std.
std::vector<run_measurement> run_everything() {
  std::vector<run_measurement> runs;
  for (const auto& workload : suite_workloads())
    runs.push_back(run_suite(peer_config(workload, runnable_strategies()), ignore_progress));
  return runs;
}

const std::vector<run_measurement>& everything() {
  static const std::vector<run_measurement> runs = run_everything();
  return runs;
}

TEST(StrategyConformance, EveryStrategyRunsEveryWorkloadOrSaysWhyNot) {
  ASSERT_GE(suite_workloads().size(), 14u);
  for (const char* peer : {"foonathan_stack", "foonathan_pool_collection", "foonathan_pool",
                           "boost_pmr_monotonic", "boost_pmr_unsync_pool", "boost_pmr_sync_pool",
                           "mimalloc_heap", "alloclab_multipool_static"})
    EXPECT_NE(find_strategy(peer), nullptr) << peer;
  for (const auto& run : everything()) {
    const workload_measurement& w = run.workloads.at(0);
    EXPECT_NE(w.checksum, 0u) << w.name;
    for (const auto& c : w.cells) {
      const std::string where = w.name + " / " + c.strategy;
      if (c.status == cell_status::not_applicable) {
        EXPECT_FALSE(c.reason.empty()) << where;
        continue;
      }
      ASSERT_EQ(c.status, cell_status::ok) << where << ": " << c.reason;
      EXPECT_EQ(c.checksum, w.checksum) << where;
      EXPECT_EQ(c.repetition_medians_ns.size(), 1u) << where;
      if (find_strategy(c.strategy)->fallbacks == fallback_rule::forbidden) {
        EXPECT_EQ(c.heap_allocations_per_iteration, 0.0) << where;
      }
    }
  }
}

TEST(StrategyConformance, EveryWorkloadHasAMultipoolNumber) {
  for (const auto& run : everything()) {
    const workload_measurement& w = run.workloads.at(0);
    const bool threaded = find_workload(w.name)->threads > 1;
    for (const char* ours : {"alloclab_multipool", "alloclab_multipool_static"}) {
      const cell_measurement& c = strategy_cell_of(w, ours);
      if (threaded) {
        EXPECT_EQ(c.status, cell_status::not_applicable) << w.name << " / " << ours;
      } else {
        EXPECT_EQ(c.status, cell_status::ok) << w.name << " / " << ours << ": " << c.reason;
        // Classes up to the largest request: after the warm-up nothing reaches the heap.
        EXPECT_EQ(c.heap_allocations_per_iteration, 0.0) << w.name << " / " << ours;
      }
    }
    if (threaded) {
      EXPECT_EQ(strategy_cell_of(w, "alloclab_concurrent_multipool").status, cell_status::ok)
          << w.name;
    }
  }
}

TEST(StrategyConformance, MultithreadedWorkloadsRunThreadSafeStrategiesOnly) {
  for (const char* name : {"message_queue_mt", "request_mix_mt"}) {
    const workload_entry* w = find_workload(name);
    ASSERT_NE(w, nullptr) << name;
    EXPECT_EQ(w->threads, 2u) << name;
  }
  EXPECT_EQ(find_workload("request_mix")->threads, 1u);
  for (const auto& run : everything()) {
    const workload_measurement& w = run.workloads.at(0);
    if (find_workload(w.name)->threads <= 1) continue;
    for (const auto& c : w.cells) {
      const strategy_entry& s = *find_strategy(c.strategy);
      if (s.thread_safe) {
        EXPECT_EQ(c.status, cell_status::ok) << w.name << " / " << c.strategy << ": " << c.reason;
      } else {
        EXPECT_EQ(c.status, cell_status::not_applicable) << w.name << " / " << c.strategy;
        EXPECT_NE(c.reason.find("not thread-safe"), std::string::npos) << c.reason;
      }
    }
  }
  for (const char* safe : {"std", "pmr_new_delete", "pmr_sync_pool",
                           "alloclab_concurrent_multipool", "boost_pmr_sync_pool", "mimalloc_heap"})
    EXPECT_TRUE(find_strategy(safe)->thread_safe) << safe;
  for (const char* unsafe : {"pmr_unsync_pool", "alloclab_multipool", "foonathan_pool_collection",
                             "boost_pmr_unsync_pool", "foonathan_stack"})
    EXPECT_FALSE(find_strategy(unsafe)->thread_safe) << unsafe;
}

TEST(StrategyConformance, MultithreadedChecksumsAgreeAcrossStrategies) {
  for (const char* name : {"message_queue_mt", "request_mix_mt"}) {
    std::vector<std::string> safe;
    for (const auto& s : runnable_strategies())
      if (find_strategy(s)->thread_safe) safe.push_back(s);
    ASSERT_GE(safe.size(), 5u);
    // Several runs: thread interleavings differ, the results must not.
    std::set<std::uint64_t> sums;
    for (int round = 0; round < 3; ++round) {
      const run_measurement run = run_suite(peer_config(name, safe), ignore_progress);
      for (const auto& c : run.workloads.at(0).cells) {
        ASSERT_EQ(c.status, cell_status::ok) << name << " / " << c.strategy << ": " << c.reason;
        sums.insert(c.checksum);
      }
    }
    EXPECT_EQ(sums.size(), 1u) << name;
  }
}

TEST(StrategyConformance, ArenaPeersResetEveryIteration) {
  // A stack or monotonic buffer that was not reset would exhaust (boost: throws, no number) or
  // grow (foonathan: heap blocks per iteration) over many iterations.
  run_config config =
      peer_config("string_concat", {"std", "foonathan_stack", "boost_pmr_monotonic"});
  config.counted_iterations = 200;
  const run_measurement run = run_suite(config, ignore_progress);
  for (const char* s : {"foonathan_stack", "boost_pmr_monotonic"}) {
    const cell_measurement& c = strategy_cell_of(run.workloads.at(0), s);
    EXPECT_EQ(c.status, cell_status::ok) << s << ": " << c.reason;
    EXPECT_EQ(c.heap_allocations_per_iteration, 0.0) << s;
  }
}

TEST(MimallocHeap, LoadingItLeavesMallocToGlibc) {
  if (!mimalloc_present()) GTEST_SKIP() << "libmimalloc.so.2 not installed";
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc; mimalloc is not loaded beside it";
  const std::string before = alloclab::mallocs::symbol_owner("malloc");
  const workload_footprint f;
  {
    auto instance = find_strategy("mimalloc_heap")->make(f);
    void* block = instance->resource()->allocate(100, 8);
    instance->resource()->deallocate(block, 100, 8);
    instance->end_iteration();
  }
  void* library = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr) << "the strategy loaded mimalloc";
  using owns_fn = bool (*)(const void*);
  const auto owns = reinterpret_cast<owns_fn>(dlsym(library, "mi_is_in_heap_region"));
  ASSERT_NE(owns, nullptr);
  void* from_malloc = std::malloc(64);
  EXPECT_FALSE(owns(from_malloc)) << "malloc now returns mimalloc blocks";
  std::free(from_malloc);
  EXPECT_EQ(alloclab::mallocs::symbol_owner("malloc"), before);
  EXPECT_TRUE(alloclab::mallocs::library_matches(before, "libc.so.6")) << before;
  dlclose(library);  // drops the NOLOAD reference only
}

// The serve frame borrows an instance made on one thread and runs iterations on connection
// threads, each ending with end_iteration(). A mimalloc heap belongs to the thread that made it:
// ending an iteration on another thread must release that thread's heap, not the maker's (which
// the maker then destroyed as a heap of an exited thread: SIGSEGV when the server stopped).
TEST(MimallocHeap, AnIterationEndedOnAnotherThreadLeavesTheMakersHeapIntact) {
  if (!mimalloc_present()) GTEST_SKIP() << "libmimalloc.so.2 not installed";
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc; mimalloc is not loaded beside it";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const workload_footprint f;
        auto instance = find_strategy("mimalloc_heap")->make(f);
        std::thread connection([&] {
          for (int iteration = 0; iteration < 3; ++iteration) {
            for (int i = 0; i < 100; ++i)
              static_cast<void>(instance->resource()->allocate(64 + i, 8));
            instance->end_iteration();  // the iteration's blocks go at once
          }
        });
        connection.join();
        void* block = instance->resource()->allocate(100, 8);  // the maker's heap still works
        instance->resource()->deallocate(block, 100, 8);
        instance->end_iteration();
        instance.reset();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// --- peer verdict on synthetic results -------------------------------------------------------

model::cell timed_cell(const std::string& strategy, std::vector<double> medians,
                       const std::string& malloc = "glibc") {
  std::vector<double> sorted = medians;
  std::sort(sorted.begin(), sorted.end());
  model::cell c;
  c.head.strategy = strategy;
  c.head.malloc = malloc;
  c.head.status = "ok";
  c.timing.emplace();
  c.timing->p50_ns = sorted[sorted.size() / 2];
  c.timing->repetition_medians_ns = std::move(medians);
  return c;
}

model::cell unmeasured(const std::string& strategy, const std::string& status) {
  model::cell c;
  c.head.strategy = strategy;
  c.head.malloc = "glibc";
  c.head.status = status;
  return c;
}

model::workload workload_with(std::vector<model::cell> cells) {
  model::workload w;
  w.name = "w";
  w.cells = std::move(cells);
  return w;
}

// The verdicts as results.json holds them.
json verdicts_json(const model::workload& w, bool power,
                   const std::vector<peer_stop_interval>& stop_rule = {}) {
  return model::write_json(peer_verdicts(w, power, stop_rule));
}

const std::vector<double> fast = {10, 11, 10.5, 10.2, 10.8};
const std::vector<double> slow = {20, 21, 20.5, 20.2, 20.8};
const std::vector<double> slower = {30, 31, 30.5, 30.2, 30.8};

TEST(PeerVerdict, SidesAreTheEntriesOwn) {
  for (const strategy_entry& s : strategy_registry()) EXPECT_EQ(side_of(s.name), s.side) << s.name;
  EXPECT_EQ(side_of("no_such_strategy"), peer_side::neither);
  for (const char* ours : {"alloclab_arena", "alloclab_multipool_static", "alloclab_pool"})
    EXPECT_EQ(side_of(ours), peer_side::alloclab) << ours;
  for (const char* peer :
       {"foonathan_stack", "boost_pmr_sync_pool", "mimalloc_heap", "pmr_monotonic",
        "pmr_unsync_pool", "pmr_sync_pool", "pmr_monotonic_over_pool"})
    EXPECT_EQ(side_of(peer), peer_side::peer) << peer;
  for (const char* neither : {"std", "pmr_new_delete", "pmr_monotonic_undersized"})
    EXPECT_EQ(side_of(neither), peer_side::neither) << neither;
}

TEST(PeerVerdict, MetWhenTheBestAlloclabBeatsEveryPeerSignificantly) {
  const json v = verdicts_json(
      workload_with({timed_cell("std", slower), timed_cell("alloclab_multipool", slow),
                     timed_cell("alloclab_arena", fast), timed_cell("boost_pmr_unsync_pool", slow),
                     timed_cell("pmr_unsync_pool", slower),
                     unmeasured("foonathan_pool", "not_applicable")}),
      true);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]["verdict"], "met");
  EXPECT_EQ(v[0]["best_alloclab"]["strategy"], "alloclab_arena");
  EXPECT_TRUE(v[0]["reason"].is_null());
  ASSERT_EQ(v[0]["peers"].size(), 2u);  // std is neither side; n/a is not a peer number
  EXPECT_NEAR(v[0]["peers"][0]["ratio"].get<double>(), 20.5 / 10.5, 1e-9);
  EXPECT_TRUE(v[0]["unmeasured_peers"].empty());
  // Each ratio carries its bootstrap interval over repetition medians: every resample of
  // `slow` ÷ `fast` lies within [20/11, 21/10].
  for (const auto& peer : v[0]["peers"]) {
    const json& interval = peer.at("interval");
    ASSERT_TRUE(interval.is_object()) << peer;
    EXPECT_LE(interval["low"].get<double>(), peer["ratio"].get<double>()) << peer;
    EXPECT_GE(interval["high"].get<double>(), peer["ratio"].get<double>()) << peer;
  }
  EXPECT_GE(v[0]["peers"][0]["interval"]["low"].get<double>(), 20.0 / 11);
  EXPECT_LE(v[0]["peers"][0]["interval"]["high"].get<double>(), 21.0 / 10);
}

// The request_mix_mt case: the peer's pooled p50 (dragged by a few fast repetitions with many
// samples) said 1.54x while the repetitions, and so the interval, said 1.2x.
TEST(PeerVerdict, RatioIsTheRepetitionsOwnAndLiesInItsInterval) {
  model::cell peer = timed_cell("mimalloc_heap", slow);
  peer.timing->p50_ns = 31.0;
  const json v =
      verdicts_json(workload_with({timed_cell("alloclab_concurrent_multipool", fast), peer}), true);
  ASSERT_EQ(v.size(), 1u);
  const json& ratio = v[0]["peers"][0];
  EXPECT_NEAR(ratio["ratio"].get<double>(), 20.5 / 10.5, 1e-9);
  EXPECT_LE(ratio["interval"]["low"].get<double>(), ratio["ratio"].get<double>());
  EXPECT_GE(ratio["interval"]["high"].get<double>(), ratio["ratio"].get<double>());
}

TEST(PeerVerdict, MissedNamesTheFasterPeer) {
  const json v = verdicts_json(
      workload_with({timed_cell("alloclab_multipool", slow), timed_cell("mimalloc_heap", fast),
                     timed_cell("boost_pmr_sync_pool", slower)}),
      true);
  EXPECT_EQ(v[0]["verdict"], "missed");
  const std::string reason = v[0]["reason"];
  EXPECT_NE(reason.find("mimalloc_heap is as fast or faster"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("boost_pmr_sync_pool"), std::string::npos) << reason;
}

TEST(PeerVerdict, FasterButNotSignificantIsMissedWithThePValue) {
  const json v =
      verdicts_json(workload_with({timed_cell("alloclab_multipool", {10, 30, 11, 29, 12}),
                                   timed_cell("foonathan_stack", {13, 28, 14, 27, 31})}),
                    true);
  EXPECT_EQ(v[0]["verdict"], "missed");
  EXPECT_NE(v[0]["reason"].get<std::string>().find("not significantly"), std::string::npos)
      << v[0]["reason"];
  EXPECT_FALSE(v[0]["peers"][0]["beaten"].get<bool>());
}

// Inside the noise is not a win: the U test sees every peer repetition a little slower, but the
// repetitions are bimodal, so the interval of the ratio reaches below 1.
TEST(PeerVerdict, SignificantButIntervalReachingBelowOneIsNotBeaten) {
  const json v = verdicts_json(
      workload_with(
          {timed_cell("alloclab_arena", {10, 10.1, 10.2, 10.3, 10.4, 50, 50.1, 50.2, 50.3}),
           timed_cell("foonathan_stack", {11, 11.1, 11.2, 11.3, 51, 51.1, 51.2, 51.3, 51.4})}),
      true);
  const json& peer = v[0]["peers"][0];
  ASSERT_LT(peer["p_value"].get<double>(), 0.05) << peer;
  ASSERT_TRUE(peer["interval"].is_object()) << peer;
  ASSERT_LE(peer["interval"]["low"].get<double>(), 1.0) << peer;
  EXPECT_FALSE(peer["beaten"].get<bool>()) << peer;
  EXPECT_EQ(v[0]["verdict"], "missed");
  // Not "not significantly": the U test was significant; the interval is what held it back.
  EXPECT_NE(v[0]["reason"].get<std::string>().find("inside the noise: its 95 % interval"),
            std::string::npos)
      << v[0]["reason"];
}

// Selection: the best of N alloclab strategies is picked before it meets the peers, so the test
// is at alpha / N. Here the best beats the peer with p = 0.016 (one of 25 pairs reversed): met
// when it is the only alloclab strategy, missed when it was picked among six.
TEST(PeerVerdict, TheBestOfSeveralAlloclabStrategiesIsTestedAtAlphaOverTheirNumber) {
  const std::vector<double> best = {10, 10.2, 10.4, 10.6, 12.5};
  const std::vector<double> peer = {12, 13, 13.2, 13.4, 13.6};
  const json alone = verdicts_json(
      workload_with({timed_cell("alloclab_arena", best), timed_cell("pmr_monotonic", peer)}), true);
  ASSERT_LT(alone[0]["peers"][0]["p_value"].get<double>(), 0.05) << alone;
  EXPECT_EQ(alone[0]["verdict"], "met") << alone;
  std::vector<model::cell> cells = {timed_cell("alloclab_arena", best),
                                    timed_cell("pmr_monotonic", peer)};
  for (const char* other : {"alloclab_pool", "alloclab_multipool", "alloclab_multipool_static",
                            "alloclab_concurrent_multipool", "alloclab_arena_static"})
    cells.push_back(timed_cell(other, slower));
  const json picked = verdicts_json(workload_with(cells), true);
  EXPECT_EQ(picked[0]["verdict"], "missed") << picked;
  EXPECT_EQ(picked[0]["candidates"], 6);
  EXPECT_EQ(alone[0]["candidates"], 1);
  EXPECT_NEAR(picked[0]["confidence"].get<double>(), 1 - 0.05 / 6, 1e-12);
  EXPECT_NEAR(picked[0]["peers"][0]["adjusted_p_value"].get<double>(),
              6 * picked[0]["peers"][0]["p_value"].get<double>(), 1e-12);
  EXPECT_NE(picked[0]["reason"].get<std::string>().find("best of 6 alloclab strategies"),
            std::string::npos)
      << picked[0]["reason"];
}

TEST(PeerVerdict, TooFewRepetitionsCannotMeetTheTarget) {
  const json v = verdicts_json(workload_with({timed_cell("alloclab_arena", {10, 11}),
                                              timed_cell("pmr_monotonic", {30, 31})}),
                               false);
  EXPECT_EQ(v[0]["verdict"], "missed");
  EXPECT_NE(v[0]["reason"].get<std::string>().find("too few repetitions"), std::string::npos);
}

TEST(PeerVerdict, NotJudgedWithoutBothSidesAndUnmeasuredPeersAreListed) {
  const json no_peer = verdicts_json(workload_with({timed_cell("alloclab_arena", fast),
                                                    unmeasured("mimalloc_heap", "not_installed")}),
                                     true);
  EXPECT_EQ(no_peer[0]["verdict"], "not_judged");
  EXPECT_EQ(no_peer[0]["unmeasured_peers"], json::array({"mimalloc_heap"}));
  const json no_ours = verdicts_json(
      workload_with({timed_cell("std", fast), timed_cell("pmr_sync_pool", slow)}), true);
  EXPECT_EQ(no_ours[0]["verdict"], "not_judged");
  EXPECT_TRUE(no_ours[0]["best_alloclab"].is_null());
}

TEST(PeerVerdict, OneVerdictPerMalloc) {
  const json v = verdicts_json(workload_with({timed_cell("alloclab_arena", fast, "glibc"),
                                              timed_cell("pmr_monotonic", slow, "glibc"),
                                              timed_cell("alloclab_arena", slow, "jemalloc"),
                                              timed_cell("pmr_monotonic", fast, "jemalloc")}),
                               true);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0]["malloc"], "glibc");
  EXPECT_EQ(v[0]["verdict"], "met");
  EXPECT_EQ(v[1]["malloc"], "jemalloc");
  EXPECT_EQ(v[1]["verdict"], "missed");
}

// --- end to end --------------------------------------------------------------------------------

using namespace cli_support;

class PeersCli : public binary_test {
 protected:
  json lab_run(const std::string& args, const std::string& environment = "") const {
    const std::string allow = allow_debug();
    const outcome o =
        run("run --iterations 5 --repetitions 2 --processes 1 --no-placement-check --out " +
                (dir_ / "results").string() + " " + args + allow,
            environment);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.err;
    const std::filesystem::path file = dir_ / "results" / "latest" / "results.json";
    if (!std::filesystem::exists(file)) {
      ADD_FAILURE() << "no results: " << o.err;
      return json::object();
    }
    const json results = json::parse(read_file(file));
    const auto problems = schema_violations(results, results_schema());
    EXPECT_TRUE(problems.empty()) << problems.front();
    return results;
  }
  static const json& cell(const json& r, const std::string& strategy) {
    for (const auto& c : r.at("workloads").at(0).at("cells"))
      if (c.at("strategy") == strategy) return c;
    throw std::runtime_error("no cell " + strategy);
  }
};

TEST_F(PeersCli, GlibcCellStaysGlibcBesideMimallocHeap) {
  if (!mimalloc_present()) GTEST_SKIP() << "libmimalloc.so.2 not installed";
  if (sanitized()) GTEST_SKIP() << "AddressSanitizer owns malloc";
  const json r = lab_run(
      "--workloads message_queue_mt --strategies std,alloclab_concurrent_multipool,mimalloc_heap,"
      "pmr_unsync_pool");
  const json& std_cell = cell(r, "std");
  ASSERT_EQ(std_cell.at("status"), "ok") << std_cell.at("reason");
  const json& proof = std_cell.at("live_allocator");
  EXPECT_TRUE(proof.at("ok").get<bool>()) << proof.dump();
  EXPECT_EQ(proof.at("expected"), "glibc");
  EXPECT_TRUE(alloclab::mallocs::library_matches(proof.at("malloc_owner_path").get<std::string>(),
                                                 "libc.so.6"))
      << proof.dump();
  const json& mi = cell(r, "mimalloc_heap");
  EXPECT_EQ(mi.at("status"), "ok") << mi.at("reason");
  EXPECT_EQ(cell(r, "pmr_unsync_pool").at("status"), "not_applicable");
  // The environment says how the peers were built; the report carries the verdict.
  EXPECT_NE(r.at("environment").at("foonathan_memory").get<std::string>().find("debug assertions"),
            std::string::npos);
  ASSERT_TRUE(r.at("workloads").at(0).at("peer_verdicts").is_array());
  EXPECT_EQ(r.at("workloads").at(0).at("peer_verdicts").at(0).at("best_alloclab").at("strategy"),
            "alloclab_concurrent_multipool");
  const std::string report = read_file(dir_ / "results" / "latest" / "report.md");
  EXPECT_NE(report.find("## alloclab vs peers"), std::string::npos);
  EXPECT_NE(report.find("foonathan_memory"), std::string::npos);
}

TEST_F(PeersCli, MissingMimallocGivesNotInstalledRows) {
  const json r = lab_run("--workloads trade_batch --strategies std,mimalloc_heap",
                         "ALLOCLAB_TEST_HIDE_MALLOC=mimalloc");
  const json& mi = cell(r, "mimalloc_heap");
  EXPECT_EQ(mi.at("status"), "not_installed");
  EXPECT_NE(mi.at("reason").get<std::string>().find("libmimalloc"), std::string::npos);
  EXPECT_EQ(cell(r, "std").at("status"), "ok");
}

}  // namespace
}  // namespace alloclab::lab
