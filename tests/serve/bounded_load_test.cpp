// Test plan: the load drivers against a real `alloclab serve` child, loopback only, a few
// seconds each, with server and generator pinned apart when there are two CPUs.
//   run_wrk, run_hey (closed loop), run_open_loop (constant rate): ok, 0 errors, every request
//   seen by the server's /stats, generator stops by itself ... BoundedLoad.EveryGeneratorFinishesWithoutErrors
//   a generator that is not installed is a failed result, not a crash
//                                          ... BoundedLoad.MissingGeneratorIsAFailedResult
//   run_open_loop with no server: a failed result counting what failed
//                                          ... BoundedLoad.OpenLoopWithNoServerIsAFailedResult
#include <cstdlib>

#include <gtest/gtest.h>

#include "serve/load.hpp"
#include "serve/pinning.hpp"
#include "serve_support.hpp"

namespace {

using namespace alloclab::lab::serve;
using namespace serve_test;

TEST(BoundedLoad, EveryGeneratorFinishesWithoutErrors) {
  const pin_plan pins = plan_pinning(allowed_cpus());
  std::vector<std::string> extra;
  if (pins.server_cpu) extra = {"--cpu", std::to_string(*pins.server_cpu)};
  auto server = start_server(extra);
  const std::string url = server->origin() + run_target();

  const closed_loop_options closed{url, 8, 2.0, pins.load_cpu};
  for (const load_result& r : {run_wrk(closed), run_hey(closed)}) {
    ASSERT_TRUE(r.ok) << r.generator << ": " << r.error;
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
  ASSERT_TRUE(open.ok) << open.error;
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
  const char* saved = std::getenv("PATH");
  const std::string path = saved != nullptr ? saved : "";
  ::setenv("PATH", "/nonexistent", 1);
  const load_result r = run_hey({"http://127.0.0.1:1/", 1, 1.0, std::nullopt});
  ::setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "hey is not installed (apt install hey)");
}

TEST(BoundedLoad, OpenLoopWithNoServerIsAFailedResult) {
  // Port 1 on loopback: nothing listens there (connection refused at once).
  const load_result r = run_open_loop({"http://127.0.0.1:1/run", 20.0, 0.5, 2, std::nullopt});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "no request was answered (10 sent, 10 failed)");
}

}  // namespace
