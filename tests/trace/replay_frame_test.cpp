// Tests of `alloclab replay` (the replay frame on the pipeline) and `alloclab advise`, end to end
// through the binary on tests/data/python3_json.trace with two replays per cell.
//
// Test plan (command / behaviour -> test):
//   replay: results.json (schema-valid), replay cells, report, DIR/latest like run
//                                               -> ReplayCommand.WritesTheReplayFrameLikeRun
//   replay: figures match the trace (calls, ideal RSS), one ns/call per replay
//                                               -> ReplayCommand.WritesTheReplayFrameLikeRun
//   advise --results: each recommendation cites its figure
//                                               -> ReplayCommand.AdviseCitesTheReplaysFigures
//   replay_trace through a resource: every block returned with the size and alignment it was
//   allocated with; threads, realloc, memalign, cross-thread frees; curve of one thread
//                                               -> ResourceReplay.*
//   replay --variants: a knob variant is a cell of its own, its knob read back from the malloc
//   in the worker; a knob the malloc did not take fails the cell; advise judges each against its
//   malloc's defaults
//                                               -> ReplayCommand.KnobVariantsAreCellsWithTheirKnobsReadBack
//   replay / advise: damaged or newer trace, unknown or misfit strategy, results without a
//   replay, the replay frame asked of `run` -> exit 2, one line
//                                               -> ReplayCommand.BadInputIsOneLineAndExit2
#include <filesystem>
#include <fstream>
#include <map>
#include <memory_resource>
#include <mutex>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "lab/cli_support.hpp"
#include "trace/format.hpp"
#include "trace/replay.hpp"
#include "trace/replay_trust.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::trace {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using lab::cli_support::line_count;
using lab::cli_support::outcome;
using lab::cli_support::read_file;

const std::string python_trace = std::string(TRACE_DATA_DIR) + "/python3_json.trace";

class ReplayCommand : public lab::cli_support::binary_test {
 protected:
  outcome replay(const std::string& extra) const {
    return run("replay '" + python_trace + "' --repetitions 2 --out '" + (dir_ / "out").string() +
               "' " + extra);
  }
  json latest_results() const {
    return json::parse(read_file(dir_ / "out" / "latest" / "results.json"));
  }
  void expect_refused(const std::string& args, const std::string& text) const {
    const outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(line_count(o.err), 1u) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(text), std::string::npos) << args << "\n" << o.err;
  }
};

const json* cell_of(const json& workload, const std::string& strategy) {
  for (const auto& c : workload.at("cells"))
    if (c.at("strategy") == strategy) return &c;
  return nullptr;
}

TEST_F(ReplayCommand, WritesTheReplayFrameLikeRun) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const outcome first = replay("--strategies pmr_unsync_pool,arena");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const fs::path first_run = fs::read_symlink(dir_ / "out" / "latest");
  EXPECT_TRUE(fs::exists(dir_ / "out" / first_run / "report.md"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / first_run / "report.html"));
  const outcome valid = run("validate '" + (dir_ / "out/latest/results.json").string() + "'");
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;

  const json results = latest_results();
  ASSERT_EQ(results.at("workloads").size(), 1u);
  const json& w = results.at("workloads").at(0);
  EXPECT_EQ(w.at("kind"), "trace");
  EXPECT_EQ(w.at("frame"), "replay");
  EXPECT_EQ(w.at("name"), "python3_json");
  EXPECT_TRUE(results.at("frames").contains("replay"));

  const trace_file t(python_trace);
  const trace_summary s = summarize(t);
  const replay_result in_process = replay_trace(t);
  for (const char* strategy : {"malloc", "pmr_unsync_pool", "arena"}) {
    const json* c = cell_of(w, strategy);
    ASSERT_NE(c, nullptr) << strategy;
    ASSERT_EQ(c->at("status"), "ok") << strategy << ": " << c->at("reason");
    const json& r = c->at("replay");
    EXPECT_EQ(r.at("calls").get<std::uint64_t>(), in_process.calls) << strategy;
    EXPECT_EQ(r.at("memory").at("ideal_rss_bytes").get<std::uint64_t>(), s.peak_live_bytes);
    EXPECT_EQ(r.at("ns_per_call").at("per_repetition").size(), 2u) << strategy;
    EXPECT_GT(r.at("ns_per_call").at("median").get<double>(), 0.0);
    EXPECT_GT(r.at("memory").at("peak_rss_bytes").at("median").get<double>(), 0.0);
    if (std::string(strategy) != "malloc") {
      EXPECT_FALSE(c->at("vs_std").is_null()) << strategy;
    }
  }
  EXPECT_EQ(w.at("trace").at("monotonic_footprint").get<std::uint64_t>(), s.monotonic_footprint);
  // One peak live bytes: trace info's is the trace's and every cell's ideal RSS.
  EXPECT_EQ(w.at("trace").at("peak_live_bytes").get<std::uint64_t>(), s.peak_live_bytes);
  const replay_trust trust = assess_replay(s);
  EXPECT_EQ(w.at("replay_trust").at("predictive").get<bool>(), trust.predictive);
  EXPECT_EQ(w.at("replay_trust").at("ranking").get<std::string>(),
            trust.predictive ? predictive_text : not_predictive_text);
  EXPECT_EQ(w.at("replay_trust").at("replay_error_percent").get<double>(), replay_error_percent);
  EXPECT_TRUE(w.at("cells").at(0).at("live_allocator").at("ok").get<bool>());
  const std::string report = read_file(dir_ / "out" / "latest" / "report.md");
  EXPECT_NE(report.find("### Replay of `python3_json`"), std::string::npos) << report;
  EXPECT_NE(report.find("| arena (resource, under glibc) |"), std::string::npos) << report;
  EXPECT_NE(report.find("**Malloc ranking: "), std::string::npos) << report;
  // Verdicts in the one vocabulary (2 replays a cell: too few for the U test), not marks.
  const std::string console = first.out + first.err;
  for (const std::string& text : {report, console}) {
    EXPECT_NE(text.find("], in the replay open (too few runs)"), std::string::npos) << text;
    EXPECT_EQ(text.find("] ?"), std::string::npos) << text;
  }

  const outcome second = replay("");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(fs::read_symlink(dir_ / "out" / "latest"), first_run);
  EXPECT_EQ(latest_results().at("workloads").at(0).at("cells").size(), 1u);  // glibc alone
}

TEST_F(ReplayCommand, AdviseCitesTheReplaysFigures) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const outcome replayed = replay("--strategies alloclab_multipool,arena");
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const fs::path results = dir_ / "out" / "latest" / "results.json";
  const outcome o =
      run("advise '" + python_trace + "' --no-real --results '" + results.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const json w = latest_results().at("workloads").at(0);
  const double glibc_ns = cell_of(w, "malloc")->at("replay").at("ns_per_call").at("median");
  const double arena_ratio = cell_of(w, "arena")->at("vs_std").at("speedup_p50");
  for (const std::string& text :
       {fmt::format("baseline glibc at {:.1f} ns per call", glibc_ns),
        std::string("only glibc was measured"), std::string("size classes (log2) cover"),
        std::string("multipool_options{.max_block_size = "),
        std::string("estimate (replay) through alloclab_multipool: "),
        std::string("estimate (replay) through that arena: "),
        std::string("the monotonic footprint, 186.9 MiB"),
        std::string("answer: none from real runs (--no-real); estimate (replay): keep glibc")})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << "\n" << o.out;
  // The answer first, then the evidence, then the method.
  EXPECT_EQ(o.out.find("answer: "), o.out.find('\n') + 1) << o.out;
  EXPECT_LT(o.out.find("\nevidence\n"), o.out.find("\nmethod\n")) << o.out;
  // The arena's ratio, printed with the digits its interval supports (2 to 3 decimals here).
  const std::string arena = "estimate (replay) through that arena: ";
  const std::size_t at = o.out.find(arena);
  ASSERT_NE(at, std::string::npos) << o.out;
  const double printed = std::stod(o.out.substr(at + arena.size()));
  EXPECT_NEAR(printed, arena_ratio, 0.006) << o.out;
}

// With --real (a results.json with the program frame's part, of the same program: what
// src/lab/advise/program_runs.hpp reads), the malloc advice follows the real runs, names the
// malloc to avoid, and reports the replay's agreement; real runs of another program are refused.
TEST_F(ReplayCommand, AdviseFollowsTheRealRuns) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove glibc live";
  const outcome replayed = replay("");
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const fs::path results = dir_ / "out" / "latest" / "results.json";
  // A try results document: this replay's own document (a valid results file) with a program
  // part of five runs per malloc, only its CPU times varying.
  const auto real_runs = [&](const std::string& program) {
    const auto figures = [](double seconds) {
      return json{
          {"cpu_seconds", seconds},  {"user_seconds", seconds}, {"sys_seconds", 0.0},
          {"wall_seconds", seconds}, {"peak_rss_bytes", 0},     {"minor_faults", 0},
          {"major_faults", 0},       {"voluntary_switches", 0}, {"involuntary_switches", 0}};
    };
    json runs = json::array(), combinations = json::array();
    for (const auto& [malloc, seconds] :
         {std::pair{"glibc", 1.0}, std::pair{"mimalloc", 0.8}, std::pair{"tbbmalloc", 1.15},
          std::pair{"glibc_arena2", 0.9}}) {
      json c = {{"name", malloc},
                {"malloc", malloc},
                {"knobs", json::object()},
                {"knob_environment", json::object()},
                {"knob_check", {{"status", "no knobs set"}, {"read_back", nullptr}}},
                {"runs_ok", 5},
                {"runs_failed", 0},
                {"failures", json::array()},
                {"median", figures(seconds)},
                {"cpu_vs_baseline", nullptr},
                {"peak_rss_vs_baseline", nullptr},
                {"pareto_front", false},
                {"stdout_hashes", json::array()}};
      combinations.push_back(c);
      for (const double d : {0.0, 0.01, -0.01, 0.005, -0.002}) {
        json r = figures(seconds * (1 + d));
        r.update({{"combination", malloc},
                  {"ok", true},
                  {"round", runs.size() / 4},
                  {"position", 0},
                  {"malloc_live", true},
                  {"reason", nullptr},
                  {"exit_code", 0},
                  {"stdout_hash", ""},
                  {"stdout_bytes", 0},
                  {"knobs_read_back", json::object()}});
        runs.push_back(r);
      }
    }
    json document = json::parse(std::ifstream(results));
    document["program"] = {
        {"command", {program, "-c", "pass"}},
        {"working_directory", nullptr},
        {"stdin", nullptr},
        {"timeout_seconds", 60},
        {"rounds", 5},
        {"seed", 1},
        {"order", "random"},
        {"baseline", "glibc"},
        {"noise_floor_percent", 3},
        {"measures", "CPU time"},
        {"liveness", "probe"},
        {"output", {{"mode", "discard"}, {"consistent", true}, {"finding", nullptr}}},
        {"combinations", combinations},
        {"runs", runs}};
    const fs::path p = dir_ / (fs::path(program).filename().string() + ".json");
    std::ofstream(p) << document.dump();
    return p.string();
  };
  const outcome o = run("advise '" + python_trace + "' --results '" + results.string() +
                        "' --real '" + real_runs("/usr/bin/python3") + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* text :
       {"real runs of the program: CPU time (user + sys), 5 runs or more per malloc; ratios "
        "glibc ÷ malloc, > 1: faster than glibc",
        "answer: use mimalloc: decided faster than glibc, 1.25x", "tbbmalloc: 0.", "decided slower",
        "against the real runs: Spearman rho", "estimate (replay):", "±3 % noise floor",
        // A knob setting of the real runs is judged against its own malloc's defaults, in the
        // knob section, not as a malloc; the answer names the chosen malloc's knobs.
        "   real runs MALLOC_ARENA_MAX=2 (glibc_arena2 vs glibc): 1.1",
        "knobs: no setting of mimalloc tried (real runs)\n",
        "knob settings tried as real runs: those --real's runs had"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << "\n" << o.out;
  EXPECT_EQ(o.out.find("   glibc_arena2: "), std::string::npos) << o.out;
  expect_refused("advise '" + python_trace + "' --results '" + results.string() + "' --real '" +
                     real_runs("/usr/bin/sqlite3") + "'",
                 "not the same program");
}

// Knob variants (mallocs/knobs.hpp), as `try` has them: each variant is a cell under its
// label, run with its knob set and read back from the malloc inside the worker; a knob the malloc
// did not take (a decay jemalloc clamps) is a failed cell, not the defaults under the variant's
// name.
TEST_F(ReplayCommand, KnobVariantsAreCellsWithTheirKnobsReadBack) {
  if (alloclab::build::sanitized)
    GTEST_SKIP() << "AddressSanitizer owns malloc: a replay worker cannot prove jemalloc live";
  const outcome o = replay(
      "--malloc glibc,jemalloc --variants "
      "'jemalloc:dirty_decay_ms=0,jemalloc:dirty_decay_ms=99999999999999'");
  ASSERT_EQ(o.exit_code, 1) << o.err;  // the clamped knob's cell failed
  const json w = latest_results().at("workloads").at(0);
  std::map<std::string, const json*> by_malloc;
  for (const json& c : w.at("cells")) by_malloc[c.at("malloc").get<std::string>()] = &c;
  ASSERT_EQ(by_malloc.size(), 4u) << w.at("cells").dump();
  const json& taken = *by_malloc.at("jemalloc dirty_decay_ms=0");
  EXPECT_EQ(taken.at("status"), "ok") << taken.dump();
  EXPECT_TRUE(taken.at("live_allocator").at("ok").get<bool>()) << taken.dump();
  const json& clamped = *by_malloc.at("jemalloc dirty_decay_ms=99999999999999");
  EXPECT_NE(clamped.at("status"), "ok") << clamped.dump();
  EXPECT_NE(clamped.dump().find("knob dirty_decay_ms not applied: set 99999999999999, jemalloc "
                                "uses "),
            std::string::npos)
      << clamped.dump();
  // advise judges each variant against its own malloc's defaults.
  const outcome advised = run("advise '" + python_trace + "' --no-real --results '" +
                              (dir_ / "out" / "latest" / "results.json").string() + "'");
  ASSERT_EQ(advised.exit_code, 0) << advised.err;
  EXPECT_NE(advised.out.find(
                "   estimate (replay) dirty_decay_ms=0 (jemalloc dirty_decay_ms=0 vs jemalloc): "),
            std::string::npos)
      << advised.out;
  // Two replays a side cannot decide anything: the knob is open, not "does not matter".
  EXPECT_NE(advised.out.find("in the replay open (too few runs)"), std::string::npos)
      << advised.out;
  EXPECT_EQ(advised.out.find("does not matter"), std::string::npos) << advised.out;
  expect_refused(
      "replay '" + python_trace + "' --malloc glibc --variants 'jemalloc:dirty_decay_ms=0'",
      "which --malloc does not include");
  expect_refused("replay '" + python_trace + "' --malloc jemalloc --variants 'jemalloc:nope=1'",
                 "nope");
}

TEST_F(ReplayCommand, BadInputIsOneLineAndExit2) {
  const std::string bytes = read_file(python_trace);
  const fs::path cut = dir_ / "cut.trace", newer = dir_ / "newer.trace";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::string newer_bytes = bytes;
  newer_bytes[8] = static_cast<char>(trace_format::current_version + 1);
  std::ofstream(newer, std::ios::binary) << newer_bytes;
  const fs::path no_replay = dir_ / "no_replay.json";
  std::ofstream(no_replay) << R"({"workloads": []})";

  expect_refused("replay '" + cut.string() + "'", "truncated trace");
  expect_refused("advise '" + cut.string() + "'", "truncated trace");
  expect_refused("replay '" + newer.string() + "'", "newer than this alloclab reads");
  expect_refused("replay '" + (dir_ / "absent.trace").string() + "'", "cannot open");
  expect_refused("replay '" + python_trace + "' --strategies nope", "unknown replay strategy");
  expect_refused("advise '" + python_trace + "' --results '" + no_replay.string() + "'",
                 "not an alloclab results file");
  expect_refused("run --frames replay", "alloclab replay TRACE");

  const fs::path threaded = dir_ / "threads.trace";
  const outcome recorded =
      run("record -o '" + threaded.string() + "' -- " + TRACE_RECORDED_PROGRAM + " threads");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  expect_refused("replay '" + threaded.string() + "' --strategies pmr_unsync_pool",
                 "pmr_unsync_pool is not thread-safe");
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // refused before anything was written
}

// Malloc underneath, with a ledger: a deallocate must name a live block with the size and
// alignment it was allocated with. Thread-safe.
class ledger_resource final : public std::pmr::memory_resource {
 public:
  std::size_t live_blocks() const {
    std::lock_guard<std::mutex> g(mutex_);
    return live_.size();
  }
  std::size_t mismatches() const {
    std::lock_guard<std::mutex> g(mutex_);
    return mismatches_;
  }
  std::size_t aligned_64() const {
    std::lock_guard<std::mutex> g(mutex_);
    return aligned_64_;
  }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, alignment);
    std::lock_guard<std::mutex> g(mutex_);
    live_[p] = {bytes, alignment};
    aligned_64_ += alignment == 64;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    {
      std::lock_guard<std::mutex> g(mutex_);
      const auto it = live_.find(p);
      if (it == live_.end() || it->second != std::make_pair(bytes, alignment)) {
        ++mismatches_;
        return;  // never hand a wrong size to the upstream
      }
      live_.erase(it);
    }
    std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }
  mutable std::mutex mutex_;
  std::map<void*, std::pair<std::size_t, std::size_t>> live_;
  std::size_t mismatches_ = 0;
  std::size_t aligned_64_ = 0;
};

class ResourceReplay : public lab::cli_support::binary_test {};

TEST_F(ResourceReplay, EveryBlockReturnsWithItsSizeAndAlignment) {
  const fs::path path = dir_ / "threads.trace";
  const outcome recorded =
      run("record -o '" + path.string() + "' -- " + TRACE_RECORDED_PROGRAM + " threads");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const trace_file t(path.string());
  const trace_summary s = summarize(t);
  ledger_resource ledger;
  replay_options options;
  options.resource = &ledger;
  const replay_result r = replay_trace(t, options);
  EXPECT_EQ(ledger.mismatches(), 0u);
  EXPECT_EQ(ledger.live_blocks(), 0u);  // the trace's leftovers are released to the resource
  EXPECT_EQ(ledger.aligned_64(), 30u);  // memalign, posix_memalign, aligned_alloc: 10 each
  EXPECT_EQ(r.final_live_bytes, s.final_live_bytes);
  EXPECT_EQ(r.released_at_end, s.final_live_blocks);
  using k = event_kind;
  EXPECT_EQ(r.calls_by_kind[static_cast<std::size_t>(k::realloc)],
            s.by_kind[static_cast<std::size_t>(k::realloc)]);
  EXPECT_EQ(r.calls_by_kind[static_cast<std::size_t>(k::usable_size)], 0u);  // no pmr counterpart
  EXPECT_GE(r.calls_by_kind[static_cast<std::size_t>(k::free)], 1145u);      // 1040 cross-thread
}

TEST(ResourceReplayCurve, OneThreadFollowsTheTraceThroughAPool) {
  const trace_file t(python_trace);
  summary_options summary;
  summary.curve_stride = 1;
  const trace_summary s = summarize(t, summary);
  std::pmr::unsynchronized_pool_resource pool;
  replay_options options;
  options.resource = &pool;
  options.curve_stride = 1;
  const replay_result r = replay_trace(t, options);
  EXPECT_EQ(r.peak_live_bytes, s.peak_live_bytes);
  EXPECT_TRUE(r.live_curve == s.live_curve) << "the replay's live bytes differ from the trace's";
}

}  // namespace
}  // namespace alloclab::trace
