// Test plan: the load drivers against a real `alloclab serve` child, loopback only, a few
// seconds each, with server and generator pinned apart when there are two CPUs.
//   run_wrk, run_hey (closed loop), run_open_loop (constant rate): ok, 0 errors, every request
//   seen by the server's /stats, generator stops by itself ... BoundedLoad.EveryGeneratorFinishesWithoutErrors
//   a generator that is not installed is a failed result, not a crash
//                                          ... BoundedLoad.MissingGeneratorIsAFailedResult
//   run_open_loop with no server: a failed result, at once
//                                          ... BoundedLoad.OpenLoopWithNoServerIsAFailedResult
//   `alloclab load` where every request fails: "ok": false, exit 1
//                                          ... LoadCommand.FailureIsNotReportedAsSuccess
//   NaN / infinite --rate and --duration: exit 2 ... LoadCommand.NonFiniteNumbersAreRefused
//   --rate x --duration beyond memory, nothing listening: a failed result, no bad_alloc
//                                          ... LoadCommand.HugeOpenLoopScheduleIsNotAllocated
//   judge_success: no success or errors dominating -> not ok
//                                          ... LoadJudgement.*
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "load/generators.hpp"
#include "load/pinning.hpp"
#include "support/scoped_env.hpp"
#include "support/serve_support.hpp"

namespace {

using namespace alloclab::lab::load;
using namespace serve_test;

TEST(BoundedLoad, EveryGeneratorFinishesWithoutErrors) {
  const pin_plan pins = plan_pinning(allowed_cpus());
  std::vector<std::string> extra;
  if (pins.server_cpu) extra = {"--cpu", std::to_string(*pins.server_cpu)};
  auto server = start_server(extra);
  const std::string url = server->origin() + run_target();

  const closed_loop_options closed{url, 8, 2.0, pins.load_cpu};
  for (const load_result& r : {run_wrk(closed), run_hey(closed)}) {
    ASSERT_TRUE(r.ok) << r.generator << ": " << r.error.value_or("");
    EXPECT_EQ(r.errors, 0u) << r.generator;
    EXPECT_GT(r.requests, 0u) << r.generator;
    EXPECT_GT(r.throughput_rps, 0.0) << r.generator;
    ASSERT_TRUE(r.server.has_value()) << r.generator;
    EXPECT_GE(r.server->run_requests, r.requests) << r.generator;  // + those it abandoned
    EXPECT_TRUE(r.latency.p50_ms.has_value()) << r.generator;
    if (pins.load_cpu) {
      EXPECT_EQ(r.command.at(0).substr(r.command.at(0).rfind('/')), "/taskset");
    }
  }

  const load_result open = run_open_loop({url, 200.0, 2.0, 4, pins.load_cpu});
  ASSERT_TRUE(open.ok) << open.error.value_or("");
  EXPECT_EQ(open.errors, 0u);
  EXPECT_EQ(open.requests, 400u);
  EXPECT_EQ(*open.target_rate_rps, 200.0);
  ASSERT_TRUE(open.server.has_value());
  EXPECT_EQ(open.server->run_requests, 400u);
  EXPECT_GT(open.server->cpu_us_per_request, 0.0);
  EXPECT_GT(*open.server->share_of_latency, 0.0);
  EXPECT_LE(*open.latency.p50_ms, *open.latency.p99_ms);
  EXPECT_EQ(server->stop(SIGTERM).exit_code, 0) << server->output();
}

TEST(BoundedLoad, MissingGeneratorIsAFailedResult) {
  const load_result r = [] {
    const alloclab::test::scoped_env path("PATH", "/nonexistent");
    return run_hey({"http://127.0.0.1:1/", 1, 1.0, std::nullopt});
  }();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""), "hey is not installed (apt install hey)");
}

TEST(BoundedLoad, OpenLoopWithNoServerIsAFailedResult) {
  // Port 1 on loopback: nothing listens there (connection refused at once).
  const load_result r = run_open_loop({"http://127.0.0.1:1/run", 20.0, 0.5, 2, std::nullopt});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""),
            "http://127.0.0.1:1 does not answer (GET /healthz failed on every connection)");
}

TEST(LoadJudgement, NoSuccessOrDominatingErrorsIsNotOk) {
  load_result none;
  none.ok = true;
  none.errors = 281509;
  judge_success(none);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.error.value_or(""), "no request succeeded (0 answered, 281509 errors)");

  load_result dominated;
  dominated.ok = true;
  dominated.requests = dominated.succeeded = 10;
  dominated.errors = 11;
  judge_success(dominated);
  EXPECT_FALSE(dominated.ok);
  EXPECT_EQ(dominated.error.value_or(""),
            "errors dominate: 11 errors against 10 successful requests");

  load_result fine;
  fine.ok = true;
  fine.requests = fine.succeeded = 10;
  fine.errors = 10;
  judge_success(fine);
  EXPECT_TRUE(fine.ok) << fine.error.value_or("");
}

struct command_outcome {
  int exit_code = -1;
  std::string out;
};

command_outcome run_load(const std::string& args) {
  const std::string out = "load_out_" + std::to_string(::getpid()) + ".json";
  const std::string command = "env -u LD_PRELOAD timeout -s KILL 120 '" + binary() + "' load " +
                              args + " >" + out + " 2>/dev/null";
  const int status = std::system(command.c_str());
  command_outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  o.out = text.str();
  std::remove(out.c_str());
  return o;
}

TEST(LoadCommand, FailureIsNotReportedAsSuccess) {
  // Not a URL at all is bad input (issue 41), refused before any load: exit 2, one line.
  EXPECT_EQ(run_load("--url bogus --duration 1").exit_code, 2);
  for (const std::string url : {"http://127.0.0.1:1/run"}) {
    const command_outcome o = run_load("--url " + url + " --duration 1");
    EXPECT_EQ(o.exit_code, 1) << url << "\n" << o.out;
    const auto doc = nlohmann::json::parse(o.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << o.out;
    EXPECT_EQ(doc.at("ok"), false) << o.out;
    EXPECT_EQ(doc.at("throughput_rps"), 0.0) << o.out;
  }
}

TEST(LoadCommand, NonFiniteNumbersAreRefused) {
  for (const std::string args : {"--generator open --rate nan", "--generator open --rate inf",
                                 "--duration nan", "--duration -inf"}) {
    EXPECT_EQ(run_load("--url http://127.0.0.1:1/run " + args).exit_code, 2) << args;
  }
}

TEST(LoadCommand, HugeOpenLoopScheduleIsNotAllocated) {
  // 3.6e10 requests: the client must neither reserve room for all their latencies up front
  // nor try them one by one against a port where nothing listens.
  const command_outcome o = run_load(
      "--generator open --url http://127.0.0.1:1/run --rate 10000000 --duration 3600 "
      "--connections 1");
  EXPECT_EQ(o.exit_code, 1) << o.out;
  const auto doc = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << o.out;
  EXPECT_EQ(doc.at("ok"), false);
}

}  // namespace
