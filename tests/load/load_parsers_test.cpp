// Test plan: the load drivers' pure parts (load/generators.hpp, load/pinning.hpp).
//   parse_hey_summary: percentiles, throughput, status codes and transport errors
//                                          ... HeyParser.ReadsTheSummary, HeyParser.CountsErrors
//                                          ... HeyParser.RejectsOtherText
//   a run where nothing succeeded is a failure, with no throughput
//                                          ... HeyParser.OnlyErrorsIsAFailure
//   parse_wrk_report + wrk_report_script .. WrkParser.ReadsTheScriptsLine, WrkParser.RejectsOtherText
//   a run as `alloclab load` prints it ..... LoadResultJson.KeysOfARunAndOfAFailure
//   serve_repetition in a record (shard files): typed round trip, an older record's whole /stats
//   accepted, a malformed repetition is nlohmann's exception (merge's exit 2)
//                                          ... ServeRecord.RoundTripsAndRejectsGarbage
//   parse_http_url ......................... HttpUrl.SplitsOriginAndTarget
//   plan_pinning / allowed_cpus ............ Pinning.SeparateCoresWhenThereAreTwo
#include <gtest/gtest.h>

#include "load/generators.hpp"
#include "load/pinning.hpp"
#include "frames/serve/process_figures.hpp"
#include "records/measurement_record.hpp"

namespace {

using namespace alloclab::lab::load;

// hey 0.1.4's summary (Debian 12), trimmed of its histogram.
constexpr const char* hey_output = R"(
Summary:
  Total:	10.0216 secs
  Slowest:	0.0411 secs
  Fastest:	0.0001 secs
  Average:	0.0017 secs
  Requests/sec:	29033.1234

Latency distribution:
  10% in 0.0001 secs
  25% in 0.0001 secs
  50% in 0.0002 secs
  75% in 0.0003 secs
  90% in 0.0006 secs
  95% in 0.0009 secs
  99% in 0.0017 secs

Status code distribution:
  [200]	290900 responses
)";

TEST(HeyParser, ReadsTheSummary) {
  const load_result r = parse_hey_summary(hey_output);
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_DOUBLE_EQ(r.duration_s, 10.0216);
  EXPECT_DOUBLE_EQ(r.throughput_rps, 29033.1234);
  EXPECT_EQ(r.requests, 290900u);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_DOUBLE_EQ(*r.latency.p50_ms, 0.2);
  EXPECT_DOUBLE_EQ(*r.latency.p90_ms, 0.6);
  EXPECT_DOUBLE_EQ(*r.latency.p99_ms, 1.7);
  EXPECT_DOUBLE_EQ(*r.latency.mean_ms, 1.7);
  EXPECT_FALSE(r.latency.p999_ms.has_value());  // hey does not print it
}

TEST(HeyParser, CountsErrors) {
  const std::string text = std::string(hey_output) +
                           "  [503]\t12 responses\n\nError distribution:\n"
                           "  [7]\tGet \"http://127.0.0.1:1/run\": dial tcp: connection refused\n"
                           "  [3]\tGet \"http://127.0.0.1:1/run\": EOF\n";
  const load_result r = parse_hey_summary(text);
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_EQ(r.requests, 290912u);
  EXPECT_EQ(r.succeeded, 290900u);
  EXPECT_EQ(r.errors, 22u);
  // hey's Requests/sec counts the 10 transport errors too; only the 290900 successes count here.
  EXPECT_DOUBLE_EQ(r.throughput_rps, 29033.1234 * 290900 / 290922);
}

// `hey -z 1s bogus`: every request fails before it is sent.
TEST(HeyParser, OnlyErrorsIsAFailure) {
  const load_result r = parse_hey_summary(R"(
Summary:
  Total:	1.0114 secs
  Slowest:	0.0000 secs
  Fastest:	0.0000 secs
  Average:	NaN secs
  Requests/sec:	278323.1234

Error distribution:
  [281509]	Get "bogus": unsupported protocol scheme ""
)");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.value_or(""), "no request succeeded (0 answered, 281509 errors)");
  EXPECT_EQ(r.errors, 281509u);
  EXPECT_EQ(r.throughput_rps, 0.0);
}

TEST(HeyParser, RejectsOtherText) {
  EXPECT_FALSE(parse_hey_summary("").ok);
  EXPECT_FALSE(parse_hey_summary("Usage: hey [options...] <url>").ok);
}

TEST(WrkParser, ReadsTheScriptsLine) {
  EXPECT_NE(std::string(wrk_report_script()).find("alloclab-wrk"), std::string::npos);
  const load_result r = parse_wrk_report(
      "Running 2s test @ http://127.0.0.1:1/run\n  1 threads and 8 connections\n"
      "alloclab-wrk requests=20000 duration_us=2000000 errors=3 status_errors=2 mean_us=250.5 "
      "p50_us=200.000 p90_us=400.000 p99_us=900.000 p999_us=1500.000\n");
  ASSERT_TRUE(r.ok) << r.error.value_or("");
  EXPECT_EQ(r.requests, 20000u);
  EXPECT_EQ(r.errors, 5u);
  EXPECT_DOUBLE_EQ(r.duration_s, 2.0);
  EXPECT_DOUBLE_EQ(r.throughput_rps, 9999.0);  // the 2 non-2xx responses do not count
  EXPECT_DOUBLE_EQ(*r.latency.p50_ms, 0.2);
  EXPECT_DOUBLE_EQ(*r.latency.p999_ms, 1.5);
  EXPECT_DOUBLE_EQ(*r.latency.mean_ms, 0.2505);
}

TEST(WrkParser, RejectsOtherText) {
  EXPECT_FALSE(parse_wrk_report("Running 2s test @ http://x\n").ok);
  EXPECT_FALSE(parse_wrk_report("alloclab-wrk requests=1\n").ok);
}

TEST(LoadResultJson, KeysOfARunAndOfAFailure) {
  const nlohmann::json run = alloclab::lab::model::write_json(parse_hey_summary(hey_output));
  EXPECT_EQ(run.at("ok"), true);
  EXPECT_FALSE(run.contains("error"));  // only a failed run has one
  EXPECT_EQ(run.at("generator"), "hey");
  EXPECT_EQ(run.at("requests"), 290900u);
  EXPECT_DOUBLE_EQ(run.at("latency_ms").at("p50").get<double>(), 0.2);
  EXPECT_TRUE(run.at("latency_ms").at("p99.9").is_null());  // hey does not print it
  EXPECT_TRUE(run.at("target_rate_rps").is_null());
  EXPECT_TRUE(run.at("server").is_null());
  const nlohmann::json failed = alloclab::lab::model::write_json(parse_wrk_report("nothing"));
  EXPECT_EQ(failed.at("ok"), false);
  EXPECT_EQ(failed.at("error"), "wrk printed no alloclab-wrk line (was the report script loaded?)");
}

TEST(ServeRecord, RoundTripsAndRejectsGarbage) {
  using alloclab::lab::measurement_record;
  measurement_record r;
  r.frame = "serve";
  r.status = "ok";
  alloclab::lab::serve_repetition rep;
  rep.hey = parse_hey_summary(hey_output);
  rep.hey.server = server_side{290900, 12.5, 11.0, 40.0, 0.01, 30.0, 0.4};
  rep.ladder.push_back(rep.hey);
  rep.ladder.back().target_rate_rps = 7250;
  rep.saturation_rps = 29000;
  rep.stats = {290950, 2, 3};
  r.figures =
      alloclab::lab::frame_figures(alloclab::lab::serve_figures{"server on cpu 0", 1.0, 50, {rep}});
  nlohmann::json j = alloclab::lab::record_to_json(r);
  const measurement_record back = alloclab::lab::record_from_json(
      j, alloclab::lab::read_figures_as<alloclab::lab::serve_figures>);
  const auto* figures = back.figures.get<alloclab::lab::serve_figures>();
  ASSERT_NE(figures, nullptr);
  const alloclab::lab::serve_repetition& got = figures->repetitions.at(0);
  EXPECT_EQ(got.hey.requests, 290900u);
  EXPECT_DOUBLE_EQ(got.hey.server->share_of_cpu.value(), 0.4);
  EXPECT_FALSE(got.wrk.has_value());
  EXPECT_DOUBLE_EQ(got.ladder.at(0).target_rate_rps.value(), 7250);
  EXPECT_EQ(got.stats.requests, 290950u);
  EXPECT_EQ(got.stats.pinned_cpu, 3);
  EXPECT_EQ(alloclab::lab::record_to_json(back), j);
  // An older shard file carried the server's whole /stats: the other keys are passed over.
  nlohmann::json& stats = j["serve"]["repetitions"][0]["stats"];
  stats["uptime_s"] = 12.5;
  stats["run"] = {{"ok", 290900}};
  EXPECT_EQ(alloclab::lab::record_from_json(
                j, alloclab::lab::read_figures_as<alloclab::lab::serve_figures>)
                .figures.get<alloclab::lab::serve_figures>()
                ->repetitions.at(0)
                .stats.errors,
            2u);
  j["serve"]["repetitions"][0].erase("hey");
  EXPECT_THROW(alloclab::lab::record_from_json(
                   j, alloclab::lab::read_figures_as<alloclab::lab::serve_figures>),
               nlohmann::json::exception);
}

TEST(HttpUrl, SplitsOriginAndTarget) {
  const auto u = parse_http_url("http://127.0.0.1:8080/run?workload=a&strategy=b");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->origin, "http://127.0.0.1:8080");
  EXPECT_EQ(u->target, "/run?workload=a&strategy=b");
  EXPECT_EQ(parse_http_url("http://host")->target, "/");
  EXPECT_FALSE(parse_http_url("https://host/").has_value());
  EXPECT_FALSE(parse_http_url("http://").has_value());
}

TEST(Pinning, SeparateCoresWhenThereAreTwo) {
  const pin_plan two = plan_pinning({2, 5});
  EXPECT_EQ(two.server_cpu, 2);
  EXPECT_EQ(two.load_cpu, 5);
  EXPECT_EQ(two.describe(), "server on cpu 2, load generator on cpu 5");
  const pin_plan one = plan_pinning({0});
  EXPECT_FALSE(one.server_cpu.has_value());
  EXPECT_FALSE(one.load_cpu.has_value());
  EXPECT_FALSE(allowed_cpus().empty());
}

}  // namespace
