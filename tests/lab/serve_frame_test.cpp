// Test plan: the serve frame on the pipeline.
//   plan: `--frames serve` adds one cell per lab workload x strategy x malloc, no placement twin,
//     serve repetitions (default 5, --quick 2, --repetitions), never by default; a bad
//     --serve-duration is a usage error (ServePlanRows, ServeIsNeverADefaultFrame,
//     ServeDurationIsChecked).
//   the seed-004 serve claim on hand-made results: reproduced inside +-10 % of 1, inconclusive
//     when the interval straddles, refuted outside, not judged below 5 repetitions, not measured
//     without the serve frame (ServeClaimVerdicts, TheSeedServeClaimIsMeasurable).
//   end to end (the built binary, tiny durations): `run --frames batch,serve` writes schema-valid
//     results with serve rows beside batch ones, the report's batch-vs-serve tables and a drawn
//     chart in headless Chromium (ServeFrame.BatchAndServeEndToEnd); a server that crashes under
//     load (ALLOCLAB_TEST_WORKER_FAULT=abort_later) or hangs before it announces its port is a
//     failed row while the other variants still run, exit status 1
//     (ServeFrame.CrashedOrHungServerIsAFailedRow).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <alloclab/build_info.hpp>

#include "cli_support.hpp"
#include "model_agreement.hpp"
#include "partial_results.hpp"
#include "measure/build_guard.hpp"
#include "plan/plan.hpp"
#include "results/claims.hpp"
#include "results/results_builder.hpp"
#include "frames/serve/run_options.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace cli_support;

run_request serve_request(std::vector<std::string> frames) {
  run_request r;
  r.workloads = {"request_mix"};
  r.strategies = {"std", "pmr_monotonic_over_pool"};
  r.frames = std::move(frames);
  return r;
}

TEST(ServePlan, ServePlanRows) {
  run_request fixed = serve_request({"batch", "serve"});
  fixed.full = true;  // the fixed plan's serve: hey, wrk and the ladder (a budget: hey alone)
  const run_plan plan = make_plan(fixed, false);
  EXPECT_FALSE(serve_sizes_of(plan).hey_only);
  EXPECT_TRUE(serve_sizes_of(make_plan(serve_request({"batch", "serve"}), false)).hey_only);
  EXPECT_EQ(plan.frames, (std::vector<frame>{frame::batch, frame::serve}));
  std::size_t serve_cells = 0, batch_cells = 0;
  for (const cell_spec& c : plan.cells) {
    if (c.frame == frame::batch) ++batch_cells;
    if (c.frame != frame::serve) continue;
    ++serve_cells;
    EXPECT_EQ(c.workload, "request_mix");
    EXPECT_EQ(c.malloc.label, "glibc");  // no placement twin in the serve frame
    EXPECT_FALSE(c.copy_cliff_removed);
  }
  EXPECT_EQ(serve_cells, 2u);
  EXPECT_EQ(batch_cells, 4u);  // std and pmr, under glibc and the placement twin
  EXPECT_EQ(serve_sizes_of(plan).repetitions, default_serve_repetitions);
  EXPECT_EQ(serve_sizes_of(plan).duration_s, default_serve_duration_seconds);
  std::size_t serve_servers = 0;
  for (const task& t : plan.schedule)
    if (plan.cells.at(t.cell).frame == frame::serve) serve_servers += t.repetitions;
  EXPECT_EQ(serve_servers, 2 * default_serve_repetitions);
  EXPECT_EQ(frame_from_string("serve"), frame::serve);

  run_request quick = serve_request({"serve"});
  quick.quick = true;
  quick.mallocs = {"glibc", "glibc_arena2"};
  const run_plan q = make_plan(quick, false);
  EXPECT_EQ(q.cells.size(), 4u);  // 2 strategies x 2 mallocs, serve only
  EXPECT_EQ(serve_sizes_of(q).repetitions, quick_serve_repetitions);
  EXPECT_EQ(serve_sizes_of(q).duration_s, quick_serve_duration_seconds);
  quick.repetitions = 1;
  quick.frame_options.slot<serve_run_options>("serve").duration_seconds = 2;
  EXPECT_EQ(serve_sizes_of(make_plan(quick, false)).repetitions, 1u);
  EXPECT_EQ(serve_sizes_of(make_plan(quick, false)).duration_s, 2.0);
}

TEST(ServePlan, ServeIsNeverADefaultFrame) {
  run_request r = serve_request({});
  const run_plan plan = make_plan(r, false);
  EXPECT_EQ(plan.frames, std::vector<frame>{frame::batch});
  for (const cell_spec& c : plan.cells) EXPECT_NE(c.frame, frame::serve);
}

TEST(ServePlan, ServeDurationIsChecked) {
  for (const double bad : {0.0, 0.5, -3.0, 1e9, std::numeric_limits<double>::quiet_NaN()}) {
    run_request r = serve_request({"serve"});
    r.frame_options.slot<serve_run_options>("serve").duration_seconds = bad;
    EXPECT_THROW(make_plan(r, false), usage_error) << bad;
  }
}

// A results document with a serve section where the candidate's server CPU per request ratio is
// `value` with the interval [low, high] over `reps` repetitions, its hey throughput ratio 0.9x
// with an interval four times as wide (in log space).
json serve_results(double value, double low, double high, std::size_t reps) {
  const json estimate = {
      {"value", value}, {"interval", {{"low", low}, {"high", high}}}, {"repetitions", reps}};
  const json throughput = {
      {"value", 0.9},
      {"interval",
       {{"low", 0.9 * std::pow(low / value, 4)}, {"high", 0.9 * std::pow(high / value, 4)}}},
      {"repetitions", reps}};
  return {
      {"config", {{"samples_per_repetition", 1000}}},
      {"workloads", json::array()},
      {"serve",
       {{"workloads",
         json::array({{{"name", "request_mix"},
                       {"cells", json::array({{{"strategy", "std"},
                                               {"malloc", "glibc"},
                                               {"status", "ok"},
                                               {"reason", nullptr},
                                               {"vs_std", nullptr}},
                                              {{"strategy", "pmr_monotonic_over_pool"},
                                               {"malloc", "glibc"},
                                               {"status", "ok"},
                                               {"reason", nullptr},
                                               {"vs_std",
                                                {{"cpu_per_request_ratio", estimate},
                                                 {"throughput_ratio_hey", throughput}}}}})}}})}}}};
}

json serve_claim_verdict(const json& results) {
  for (const auto& v : judge_claims(test::complete_results(results), seed_claims()))
    if (v.at("id") == "004-serve-indistinguishable") return v;
  ADD_FAILURE() << "no 004-serve-indistinguishable claim";
  return json();
}

TEST(ServeClaim, ServeClaimVerdicts) {
  json v = serve_claim_verdict(serve_results(0.98, 0.95, 1.02, 5));
  EXPECT_EQ(v.at("verdict"), "reproduced") << v.dump();
  EXPECT_EQ(v.at("measured"), "0.98x [0.95–1.02]");
  EXPECT_NE(v.at("detail").get<std::string>().find("accepted 0.91-1.10"), std::string::npos);
  // Judged on the server's CPU; the throughput beside it, and how much wider its interval is.
  EXPECT_NE(v.at("detail").get<std::string>().find("throughput (hey req/s) beside it: 0.9"),
            std::string::npos)
      << v.at("detail");
  EXPECT_NE(v.at("detail").get<std::string>().find("is 4.0x narrower"), std::string::npos)
      << v.at("detail");

  v = serve_claim_verdict(serve_results(1.05, 0.97, 1.18, 5));
  EXPECT_EQ(v.at("verdict"), "inconclusive") << v.dump();

  v = serve_claim_verdict(serve_results(1.6, 1.4, 1.8, 5));
  EXPECT_EQ(v.at("verdict"), "refuted") << v.dump();
  EXPECT_NE(v.at("detail").get<std::string>().find("stronger effect"), std::string::npos);

  v = serve_claim_verdict(serve_results(1.0, 0.99, 1.01, 2));
  EXPECT_EQ(v.at("verdict"), "not judged: too few samples") << v.dump();

  json no_serve = serve_results(1.0, 0.99, 1.01, 5);
  no_serve["serve"] = nullptr;
  v = serve_claim_verdict(no_serve);
  EXPECT_EQ(v.at("verdict"), "not measured in this run") << v.dump();
  EXPECT_NE(v.at("detail").get<std::string>().find("--frames batch,serve"), std::string::npos);

  json failed = serve_results(1.0, 0.99, 1.01, 5);
  json& cell = failed["serve"]["workloads"][0]["cells"][1];
  cell["status"] = "failed";
  cell["reason"] = "the server died during hey";
  cell["vs_std"] = nullptr;
  v = serve_claim_verdict(failed);
  EXPECT_EQ(v.at("verdict"), "not measurable here") << v.dump();
  EXPECT_NE(v.at("detail").get<std::string>().find("died during hey"), std::string::npos);
}

TEST(ServeClaim, TheSeedServeClaimIsMeasurable) {
  for (const auto& c : seed_claims().at("claims"))
    if (c.at("id") == "004-serve-indistinguishable") {
      EXPECT_TRUE(c.value("measurable", true));
      EXPECT_EQ(c.at("metric"), "serve_cpu_per_request_ratio");
      EXPECT_EQ(c.at("frame"), "serve");  // measured in the serve frame because it says so
      return;
    }
  FAIL() << "claim missing";
}

class ServeFrame : public binary_test {
 protected:
  std::string allow_debug() const {
    return current_build().benchmark_ready() ? "" : " --allow-debug";
  }
  // The smallest serve run: 1 s per closed-loop generator, one process per cell.
  std::string tiny_serve_run(const std::string& strategies, const std::string& repetitions) const {
    return "run --quick --workloads request_mix --strategies " + strategies +
           " --serve-duration 1 --repetitions " + repetitions +
           " --processes 1 --iterations 100 --no-placement-check --out " + (dir_ / "r").string() +
           allow_debug();
  }
  json results() const { return json::parse(read_file(dir_ / "r" / "latest" / "results.json")); }
};

const json& served_cell_of(const json& r, const std::string& strategy) {
  for (const auto& c : r.at("serve").at("workloads").at(0).at("cells"))
    if (c.at("strategy") == strategy) return c;
  throw std::runtime_error("no serve cell " + strategy);
}

void expect_served(const json& cell) {
  ASSERT_EQ(cell.at("status"), "ok") << cell.at("reason");
  for (const char* generator : {"hey", "wrk"}) {
    const json& g = cell.at(generator);
    EXPECT_GT(g.at("requests").get<std::uint64_t>(), 0u) << generator;
    EXPECT_EQ(g.at("errors"), 0u) << generator;
    EXPECT_GT(g.at("throughput_rps").get<double>(), 0) << generator;
    EXPECT_GT(g.at("server").at("workload_mean_us").get<double>(), 0) << generator;
  }
  ASSERT_EQ(cell.at("ladder").size(), 3u);
  double previous = 0;
  for (const auto& step : cell.at("ladder")) {
    EXPECT_GT(step.at("target_rate_rps").get<double>(), previous);
    previous = step.at("target_rate_rps").get<double>();
    EXPECT_GT(step.at("throughput_rps").get<double>(), 0);
    EXPECT_TRUE(step.at("p99_ms").is_number());
  }
  EXPECT_EQ(cell.at("live_allocator").value("ok", false) || alloclab::build::sanitized, true);
}

TEST_F(ServeFrame, BatchAndServeEndToEnd) {
  const outcome o =
      run(tiny_serve_run("std,pmr_monotonic_over_pool", "2") + " --frames batch,serve");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  const outcome valid = run("validate " + (dir_ / "r" / "latest" / "results.json").string());
  EXPECT_EQ(valid.exit_code, 0) << valid.out << valid.err;
  const json r = results();
  EXPECT_TRUE(r.at("frames").contains("serve"));
  model_agreement::expect_model_agrees(r, "the batch and serve run's results");
  ASSERT_TRUE(r.at("serve").is_object());
  EXPECT_EQ(r.at("serve").at("repetitions"), 2u);
  const json& base = served_cell_of(r, "std");
  const json& pmr = served_cell_of(r, "pmr_monotonic_over_pool");
  expect_served(base);
  expect_served(pmr);
  EXPECT_EQ(pmr.at("processes"), 2u);  // one fresh server per repetition
  EXPECT_TRUE(base.at("vs_std").is_null());
  EXPECT_TRUE(pmr.at("vs_std").at("throughput_ratio_hey").at("value").is_number());
  EXPECT_TRUE(pmr.at("vs_std").at("throughput_ratio_wrk").at("interval").is_object());
  const json& beside = pmr.at("batch");
  EXPECT_GT(beside.at("p50_ns").get<double>(), 0);
  EXPECT_TRUE(beside.at("speedup_p50").is_object());
  // Wall time inside the workload over CPU time per request: above 1 when the server's threads
  // are preempted inside the workload (a slow sanitizer build on a shared CPU); Amdahl takes 1.
  const double share = std::min(beside.at("workload_share").get<double>(), 1.0);
  EXPECT_GT(share, 0);
  const double s = beside.at("speedup_p50").at("value").get<double>();
  const double predicted = beside.at("predicted_serve_ratio").get<double>();
  EXPECT_NEAR(predicted, amdahl_ratio(share, s), 1e-9);
  const double removed = beside.at("allocator_share_removed").get<double>();
  EXPECT_NEAR(removed, share * (1 - 1 / s), 1e-9);
  EXPECT_NEAR(predicted, 1 / (1 - removed), 1e-9);                          // Amdahl in one line
  EXPECT_LE(std::abs(std::log(predicted)), std::abs(std::log(s)) + 1e-12);  // never beyond s
  // The prediction's interval: Amdahl at the ends of the batch speedup's interval (f fixed).
  const json& s_range = beside.at("speedup_p50").at("interval");
  ASSERT_TRUE(s_range.is_object()) << beside;
  const json& p_range = beside.at("predicted_serve_interval");
  ASSERT_TRUE(p_range.is_object()) << beside;
  const auto amdahl = [&](double x) { return 1 / ((1 - share) + share / x); };
  EXPECT_NEAR(p_range.at("low").get<double>(), amdahl(s_range.at("low").get<double>()), 1e-9);
  EXPECT_NEAR(p_range.at("high").get<double>(), amdahl(s_range.at("high").get<double>()), 1e-9);
  const auto claim = std::find_if(r.at("claims").begin(), r.at("claims").end(), [](const json& v) {
    return v.at("id") == "004-serve-indistinguishable";
  });
  ASSERT_NE(claim, r.at("claims").end()) << "the serve claim was not judged at all";
  EXPECT_EQ(claim->at("verdict"), "not judged: too few samples") << claim->dump();

  const std::string md = read_file(dir_ / "r" / "latest" / "report.md");
  for (const char* heading :
       {"## Batch and serve", "### request_mix: batch beside serve",
        "### request_mix: open loop, constant rate", "### Seed 004's serve table"})
    EXPECT_NE(md.find(heading), std::string::npos) << heading;

  // The batch-vs-serve chart, drawn by Chromium with every other chart and no script error.
  ASSERT_TRUE(fs::exists(ALLOCLAB_CHROMIUM)) << "apt-get install chromium (scripts/deps.sh)";
  const fs::path dom = dir_ / "dom.html";
  const std::string command =
      std::string("timeout 120 '") + ALLOCLAB_CHROMIUM +
      "' --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
      "--disable-background-networking --user-data-dir='" +
      (dir_ / "profile").string() + "' --dump-dom --window-size=1280,2000 'file://" +
      (dir_ / "r" / "latest" / "report.html").string() + "' >'" + dom.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string page = read_file(dom);
  const auto attribute = [&](const std::string& name) {
    std::smatch m;
    return std::regex_search(page, m, std::regex(name + "=\"([^\"]*)\"")) ? m[1].str() : "?";
  };
  EXPECT_NE(page.find("id=\"chart-batch-vs-serve\""), std::string::npos);
  EXPECT_EQ(attribute("data-script-errors"), "0");
  EXPECT_EQ(attribute("data-charts-rendered"), attribute("data-charts-total"));
}

TEST_F(ServeFrame, CrashedOrHungServerIsAFailedRow) {
  // abort_later: the server aborts 1.5 s after start-up, while a generator drives it.
  const outcome crashed =
      run(tiny_serve_run("std,pmr_monotonic_over_pool", "1") + " --frames serve",
          "ALLOCLAB_TEST_WORKER_FAULT=abort_later:request_mix/std@glibc");
  EXPECT_EQ(crashed.exit_code, 1) << crashed.err;
  EXPECT_NE(crashed.err.find("serve request_mix / std @ glibc: failed"), std::string::npos)
      << crashed.err;
  json r = results();
  const json& dead = served_cell_of(r, "std");
  EXPECT_EQ(dead.at("status"), "failed");
  EXPECT_NE(dead.at("reason").get<std::string>().find("the server died during"), std::string::npos)
      << dead.at("reason");
  EXPECT_NE(dead.at("worker").at("exit").get<std::string>().find("signal 6"), std::string::npos)
      << dead.at("worker");
  EXPECT_NE(dead.at("worker").at("stderr_tail").get<std::string>().find("abort_later"),
            std::string::npos);
  expect_served(served_cell_of(r, "pmr_monotonic_over_pool"));  // the other variant still ran
  const std::string md = read_file(dir_ / "r" / "latest" / "report.md");
  EXPECT_NE(md.find("### Failed servers"), std::string::npos);
  EXPECT_EQ(run("validate " + (dir_ / "r" / "latest" / "results.json").string()).exit_code, 0);

  fs::remove_all(dir_ / "r");
  const outcome hung = run(tiny_serve_run("std", "1") + " --frames serve --cell-timeout 2",
                           "ALLOCLAB_TEST_WORKER_FAULT=hang:request_mix/std@glibc");
  EXPECT_EQ(hung.exit_code, 1) << hung.err;
  r = results();
  EXPECT_EQ(served_cell_of(r, "std").at("status"), "failed");
  EXPECT_NE(served_cell_of(r, "std").at("reason").get<std::string>().find("did not announce"),
            std::string::npos);
}

// Amdahl's law itself, on figures worked by hand (the end-to-end test checks the run uses it).
TEST(ServeAmdahl, PredictionFromShareAndSpeedup) {
  EXPECT_NEAR(amdahl_ratio(0.5, 2.0), 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(amdahl_ratio(0.08, 1.21), 1.0 / (0.92 + 0.08 / 1.21), 1e-12);
  EXPECT_DOUBLE_EQ(amdahl_ratio(0.0, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(amdahl_ratio(1.0, 5.0), 5.0);
  EXPECT_LT(amdahl_ratio(0.3, 0.5), 1.0);  // a slower part slows the whole
}

}  // namespace
}  // namespace alloclab::lab
