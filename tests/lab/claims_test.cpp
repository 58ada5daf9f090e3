// Test plan: judge_claims over hand-made results documents (partial_results.hpp completes them
// into results files the model reads).
//   ratio claims: reproduced when the whole 95 % interval is inside the accepted range
//     (RatioInsideToleranceIsReproduced), refuted when none of it is
//     (RatioOutsideToleranceIsRefuted, ARefutedRatioSaysHowItMissed), inconclusive when it
//     straddles a bound (AStraddlingIntervalIsInconclusive) or when the interval lies inside but
//     the U test over the same repetitions leaves the difference in the noise, as the lab's one
//     rule (stats/decision.hpp) would
//     (ARatioInsideTheRangeIsNotReproducedOnADifferenceTheOneRuleCallsNoise), not judged below 5 repetitions or
//     100 samples per repetition (TooFewSamplesAreNotJudged); the interval is shown
//     (MeasuredRatiosCarryTheirInterval).
//   missing cells and unmeasurable claims (MissingCellsAndUnmeasurableClaimsSayWhy).
//   heap claims: any-of-mallocs, highest cost, returns memory, and too few batches
//     (AnyOfSeveralMallocs..., HighestCost..., ReturnsMemory..., HeapClaimsNeedTheSeedsScale).
//   lowest-figure claims, with the U test between the two lowest (LowestFigureClaims).
//   the seed claims file (TheSeedClaimsFileIsWellFormed): it matches claims/seed_claims.schema.json,
//     which refuses a missing or misspelled key and an unknown metric
//     (TheClaimsSchemaRefusesAMissingOrMisspelledKeyAndAnUnknownMetric) and lists the table's
//     metrics by judging (TheClaimsSchemaNamesEveryMetricOfTheTableUnderItsJudging); a metric the
//     table does not name is an error naming it when judged (AnUnknownMetricIsAnErrorNamingIt).
//   the metrics table (claims/claim_metrics.hpp): one entry per name, each saying what it reads
//     and how it is judged (EachMetricIsOneEntrySayingWhatItReadsAndHowItIsJudged); a figure with
//     a series to subtract (jitter = p99 - p50) reads the difference per repetition
//     (AFigureWithASeriesToSubtractReadsTheDifferencePerRepetition).
//   numbers for charts: accepted range and estimates as numbers
//     (ARatioVerdictCarriesItsRangeAndEstimateAsNumbers).
//   the frames' figures the claims read come through the typed hook (model/claim_figures.hpp):
//     each heap part and the serve section give what they have
//     (EachHeapPartGivesTheFiguresItHas, TheServeSectionGivesEachVariantWithTheRatiosItHas), a
//     part without the hook nothing (APartWithoutTheHookAddsNothing), and a document built in
//     C++, never JSON, is judged (ClaimsAreJudgedOnATypedDocument).
//   the verdicts are the results model's typed claims: what judge_claims writes is valid against
//     the results schema and reads back into the model and writes again unchanged, with null
//     where a figure has none (VerdictsRoundTripThroughTheModelsCodecAndSchema).
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "claims/claim_metrics.hpp"
#include "frames/heap/figures.hpp"
#include "frames/serve/figures.hpp"
#include "model/claim_figures.hpp"
#include "model/fields.hpp"
#include "plan/seed_plan.hpp"
#include "results/claims.hpp"
#include "results/schema_check.hpp"

#include "partial_results.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// The verdicts of `claims` on the hand-made results document `partial`.
json judge_partial(const json& partial, const json& claims) {
  return judge_claims(test::complete_results(partial), claims);
}

// A timing block whose per-repetition figures scatter around the pooled ones by `spread`
// (relative): repetition i is scaled by 1 + spread * (i - 2) / 2.
json timing(double p50, double mean, double jitter, double cv, std::size_t reps = 5,
            double spread = 0.01) {
  json t = {{"p50_ns", p50},       {"mean_ns", mean}, {"p99_ns", p50 + jitter},
            {"jitter_ns", jitter}, {"cv", cv},        {"throughput_per_s", 1e9 / mean}};
  for (const char* key :
       {"repetition_medians_ns", "repetition_means_ns", "repetition_p99_ns", "repetition_cv"})
    t[key] = json::array();
  for (std::size_t i = 0; i < reps; ++i) {
    const double f = 1 + spread * (static_cast<double>(i) - 2) / 2;
    t["repetition_medians_ns"].push_back(p50 * f);
    t["repetition_means_ns"].push_back(mean * f);
    t["repetition_p99_ns"].push_back((p50 + jitter) * f);
    t["repetition_cv"].push_back(cv * f);
  }
  return t;
}

json results_with(json std_timing, json candidate_timing, std::size_t samples = 1000) {
  return {{"config", {{"samples_per_repetition", samples}}},
          {"workloads", json::array({{{"name", "w"},
                                      {"cells", json::array({{{"strategy", "std"},
                                                              {"status", "ok"},
                                                              {"reason", nullptr},
                                                              {"timing", std_timing}},
                                                             {{"strategy", "fast"},
                                                              {"status", "ok"},
                                                              {"reason", nullptr},
                                                              {"timing", candidate_timing}},
                                                             {{"strategy", "gone"},
                                                              {"status", "not_applicable"},
                                                              {"reason", "does not fit"},
                                                              {"timing", nullptr}}})}}})}};
}

json claim(const std::string& candidate, const std::string& metric, json claimed,
           double tolerance = 0.25) {
  return {{"id", "c"},        {"seed", "000"},      {"statement", "s"},
          {"workload", "w"},  {"baseline", "std"},  {"candidate", candidate},
          {"metric", metric}, {"claimed", claimed}, {"tolerance", tolerance}};
}

std::string verdict_of(const json& results, const json& one_claim) {
  return judge_partial(results, json{{"claims", json::array({one_claim})}}).at(0).at("verdict");
}

const json fast_and_slow = results_with(timing(200, 200, 40, 0.10), timing(100, 100, 10, 0.20));

TEST(Claims, RatioInsideToleranceIsReproduced) {
  EXPECT_EQ(verdict_of(fast_and_slow, claim("fast", "speedup_p50", 2.1)), "reproduced");
  EXPECT_EQ(verdict_of(fast_and_slow, claim("fast", "jitter_ratio", 4.0)), "reproduced");
  EXPECT_EQ(verdict_of(fast_and_slow, claim("fast", "speedup_mean", json::array({1.5, 2.5}))),
            "reproduced");
}

TEST(Claims, RatioOutsideToleranceIsRefuted) {
  EXPECT_EQ(verdict_of(fast_and_slow, claim("fast", "speedup_p50", 0.3)),
            "refuted");                                                             // "3x slower"
  EXPECT_EQ(verdict_of(fast_and_slow, claim("fast", "cv_ratio", 3.0)), "refuted");  // measured 0.5
}

TEST(Claims, ARatioVerdictCarriesItsRangeAndEstimateAsNumbers) {
  const json v =
      judge_partial(fast_and_slow,
                    json{{"claims", json::array({claim("fast", "speedup_p50", 2.1, 0.2)})}})
          .at(0);
  EXPECT_NEAR(v.at("accepted").at("low").get<double>(), 2.1 / 1.2, 1e-9);
  EXPECT_NEAR(v.at("accepted").at("high").get<double>(), 2.1 * 1.2, 1e-9);
  ASSERT_EQ(v.at("estimates").size(), 1u);
  const json& e = v.at("estimates").at(0);
  EXPECT_EQ(e.at("malloc"), "glibc");
  EXPECT_NEAR(e.at("value").get<double>(), 2.0, 0.05);  // 200 ns vs 100 ns
  EXPECT_LE(e.at("low").get<double>(), e.at("value").get<double>());
  EXPECT_GE(e.at("high").get<double>(), e.at("value").get<double>());

  const json missing =
      judge_partial(fast_and_slow,
                    json{{"claims", json::array({claim("absent", "speedup_p50", 2.0)})}})
          .at(0);
  EXPECT_TRUE(missing.at("accepted").is_null());
  EXPECT_TRUE(missing.at("estimates").empty());
}

TEST(Claims, ARefutedRatioSaysHowItMissed) {
  auto detail_of = [](const json& one_claim) {
    return judge_partial(fast_and_slow, json{{"claims", json::array({one_claim})}})
        .at(0)
        .at("detail")
        .get<std::string>();
  };
  // Measured speedup is 2x.
  EXPECT_NE(detail_of(claim("fast", "speedup_p50", 0.3)).find("no effect or the opposite one"),
            std::string::npos);
  EXPECT_NE(detail_of(claim("fast", "speedup_p50", 1.2)).find("a stronger effect than claimed"),
            std::string::npos);
  EXPECT_NE(detail_of(claim("fast", "speedup_p50", 5.0)).find("a weaker effect than claimed"),
            std::string::npos);
  EXPECT_EQ(detail_of(claim("fast", "speedup_p50", 2.0)).find("effect"), std::string::npos);
}

// Repetitions in two clusters: the medians differ 2x and their bootstrap interval lies inside the
// accepted range, but a fifth of each side's repetitions lie beyond the other side's (fast
// outliers of the baseline, slow ones of the candidate), so the U test over the repetitions does
// not decide the difference (p ~ 0.13). The lab's one rule calls it noise: not reproduced.
TEST(Claims, ARatioInsideTheRangeIsNotReproducedOnADifferenceTheOneRuleCallsNoise) {
  json base = timing(200, 200, 40, 0.10, 20), candidate = timing(100, 100, 10, 0.20, 20);
  const json clean = results_with(base, candidate);
  EXPECT_EQ(verdict_of(clean, claim("fast", "speedup_p50", 2.0)), "reproduced");
  for (std::size_t i = 0; i < 4; ++i) {
    base["repetition_medians_ns"][i] = 10.0;
    candidate["repetition_medians_ns"][i] = 1000.0;
  }
  const json v = judge_partial(results_with(base, candidate),
                               json{{"claims", json::array({claim("fast", "speedup_p50", 2.0)})}})
                     .at(0);
  EXPECT_GE(v.at("estimates").at(0).at("low").get<double>(), 2.0 / 1.25);  // inside the range
  EXPECT_LE(v.at("estimates").at(0).at("high").get<double>(), 2.0 * 1.25);
  EXPECT_EQ(v.at("verdict"), "inconclusive") << v.at("detail");
  EXPECT_NE(v.at("detail").get<std::string>().find("U test"), std::string::npos) << v.at("detail");
}

TEST(Claims, AStraddlingIntervalIsInconclusive) {
  // Candidate repetitions scatter by +-80 %: the 2x speedup's interval spans about 1.1x-10x.
  const json noisy = results_with(timing(200, 200, 40, 0.10), timing(100, 100, 10, 0.20, 5, 0.8));
  EXPECT_EQ(verdict_of(noisy, claim("fast", "speedup_p50", 2.0, 0.1)), "inconclusive");
  EXPECT_EQ(verdict_of(noisy, claim("fast", "speedup_p50", 20.0, 0.1)), "refuted");
}

TEST(Claims, TooFewSamplesAreNotJudged) {
  const json few_reps = results_with(timing(200, 200, 40, 0.10, 3), timing(100, 100, 10, 0.2, 3));
  EXPECT_EQ(verdict_of(few_reps, claim("fast", "speedup_p50", 2.0)), "not judged: too few samples");
  const json few_samples = results_with(timing(200, 200, 40, 0.10), timing(100, 100, 10, 0.20), 20);
  EXPECT_EQ(verdict_of(few_samples, claim("fast", "speedup_p50", 2.0)),
            "not judged: too few samples");
}

TEST(Claims, MeasuredRatiosCarryTheirInterval) {
  const json v = judge_partial(fast_and_slow,
                               json{{"claims", json::array({claim("fast", "speedup_p50", 2.0)})}})
                     .at(0);
  const std::string measured = v.at("measured");
  EXPECT_EQ(measured.rfind("2.0", 0), 0u) << measured;
  EXPECT_NE(measured.find("x ["), std::string::npos) << measured;
}

TEST(Claims, MissingCellsAndUnmeasurableClaimsSayWhy) {
  json absent_with_hint = claim("absent", "speedup_p50", 1.0);
  absent_with_hint["run_with"] = "--workloads w --malloc all";
  const json verdicts = judge_partial(
      fast_and_slow,
      json{{"claims",
            json::array({claim("gone", "speedup_p50", 1.0),
                         claim("absent", "speedup_p50", 1.0),
                         {{"id", "x"}, {"measurable", false}, {"reason", "needs hardware"}},
                         absent_with_hint})}});
  EXPECT_EQ(verdicts[0].at("verdict"), "not measurable here");  // ran, but has no number
  EXPECT_NE(verdicts[0].at("detail").get<std::string>().find("does not fit"), std::string::npos);
  EXPECT_EQ(verdicts[1].at("verdict"),
            "not measured in this run");  // not asked for: say how to ask
  EXPECT_NE(
      verdicts[1].at("detail").get<std::string>().find("not part of this run (use --workloads w"),
      std::string::npos);
  EXPECT_EQ(verdicts[2].at("verdict"), "not measurable here");
  EXPECT_EQ(verdicts[2].at("detail"), "needs hardware");
  EXPECT_NE(verdicts[3].at("detail").get<std::string>().find("--malloc all"), std::string::npos);
}

// Heap-study cells: strategy "malloc" under several mallocs, with ns_per_pair and memory figures.
json heap_cell(const std::string& malloc, double ns_per_pair, double retained_at_once,
               double retained_after_1s) {
  return {{"strategy", "malloc"},
          {"malloc", malloc},
          {"status", "ok"},
          {"reason", nullptr},
          {"timing", timing(100 * ns_per_pair, 100 * ns_per_pair, 10, 0.1)},
          {"ns_per_pair",
           {{"mean", ns_per_pair},
            {"per_repetition",
             {ns_per_pair * 0.99, ns_per_pair, ns_per_pair * 1.01, ns_per_pair, ns_per_pair}}}},
          {"memory",
           {{"retained_after_free", retained_at_once},
            {"retention",
             {{"after_free_0ms", retained_at_once}, {"after_free_1s", retained_after_1s}}}}}};
}

json heap_results() {
  json workloads = json::array();
  const std::vector<std::pair<std::string, double>> dists = {
      {"h_uniform", 10}, {"h_exp", 1}, {"h_log", 0.5}};
  for (const auto& [name, scale] : dists)
    workloads.push_back({{"name", name},
                         {"cells", json::array({heap_cell("glibc", 100 * scale, 0.95, 0.95),
                                                heap_cell("jemalloc", 80 * scale, 0.9, 0.2),
                                                heap_cell("mimalloc", 50 * scale, 0.7, 0.7)})}});
  return {{"config",
           {{"mallocs", {"glibc", "jemalloc", "mimalloc", "tcmalloc"}},
            {"samples_per_repetition", 10000},
            {"heap", {{"iterations", 10000}}}}},
          {"workloads", workloads}};
}

// "One of jemalloc, mimalloc and tcmalloc speeds h_exp up 1.4x-2.2x"; heap_results has no tcmalloc.
json any_malloc_claim() {
  return {{"id", "a"},
          {"workload", "h_exp"},
          {"baseline", "malloc"},
          {"candidate", "malloc"},
          {"candidate_mallocs", {"jemalloc", "mimalloc", "tcmalloc"}},
          {"metric", "speedup_ns_per_pair"},
          {"claimed", {1.4, 2.2}},
          {"tolerance", 0.0}};
}

TEST(Claims, AnyOfSeveralMallocsInsideTheRangeReproducesAndSaysWhich) {
  json c = any_malloc_claim();
  const json v = judge_partial(heap_results(), json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "reproduced");  // mimalloc 2.0x; jemalloc 1.25x is outside
  EXPECT_NE(v.at("measured").get<std::string>().find("jemalloc 1.25x ["), std::string::npos);
  EXPECT_NE(v.at("measured").get<std::string>().find("mimalloc 2.00x ["), std::string::npos);
  EXPECT_NE(v.at("detail").get<std::string>().find("inside: mimalloc"), std::string::npos)
      << v.at("detail");
  EXPECT_NE(v.at("detail").get<std::string>().find("not measured: tcmalloc"), std::string::npos);
  c["claimed"] = {3.0, 4.0};
  EXPECT_EQ(verdict_of(heap_results(), c), "refuted");
  c["workload"] = "h_absent";
  EXPECT_EQ(verdict_of(heap_results(), c), "not measured in this run");
}

TEST(Claims, HighestCostWorkloadUnderEveryMalloc) {
  json c = {{"id", "h"},
            {"metric", "highest_ns_per_pair"},
            {"candidate", "h_uniform"},
            {"among_workloads", {"h_uniform", "h_exp", "h_log"}}};
  const json v = judge_partial(heap_results(), json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "reproduced");
  EXPECT_EQ(v.at("measured"), "highest under 3/3 mallocs");
  c["candidate"] = "h_log";
  EXPECT_EQ(verdict_of(heap_results(), c), "refuted");
  EXPECT_EQ(verdict_of(fast_and_slow, c), "not measured in this run");
}

TEST(Claims, ReturnsMemoryComparesTheKeptShareWithTheThreshold) {
  json c = {{"id", "m"},
            {"metric", "returns_memory"},
            {"workloads", {"h_uniform", "h_exp", "h_log"}},
            {"retains", {"glibc"}},
            {"returns", {"jemalloc"}},
            {"threshold", 0.5}};
  const json v = judge_partial(heap_results(), json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "reproduced") << v.at("detail");
  EXPECT_EQ(v.at("measured"), "glibc keeps 95%, jemalloc keeps 20%");
  EXPECT_NE(v.at("detail").get<std::string>().find("1 s after the last free"), std::string::npos)
      << v.at("detail");
  c["returns"] = {"jemalloc", "mimalloc"};  // mimalloc keeps 70%
  EXPECT_EQ(verdict_of(heap_results(), c), "refuted");
  EXPECT_EQ(verdict_of(fast_and_slow, c), "not measured in this run");
}

TEST(Claims, ReturnsMemoryIsJudgedOnTheNamedRetentionFigure) {
  json c = {{"id", "m"},
            {"metric", "returns_memory"},
            {"workloads", {"h_uniform", "h_exp", "h_log"}},
            {"retains", {"glibc"}},
            {"returns", {"jemalloc"}},
            {"threshold", 0.5},
            {"figure", "after_free_0ms"}};  // jemalloc still holds 90% right after the free
  const json v = judge_partial(heap_results(), json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "refuted") << v.at("detail");
  EXPECT_EQ(v.at("measured"), "glibc keeps 95%, jemalloc keeps 90%");
  EXPECT_NE(v.at("detail").get<std::string>().find("memory.retention.after_free_0ms"),
            std::string::npos)
      << v.at("detail");
  c["figure"] = "after_free_100ms";  // not in these cells: nothing to judge
  EXPECT_EQ(verdict_of(heap_results(), c), "not measured in this run");
  c["figure"] = "after_lunch";
  EXPECT_EQ(verdict_of(heap_results(), c), "not measurable here");
}

// The retention timelines (results.json's `retention_timelines`): judged under light load at
// the horizon, RSS minus LazyFree, with the idle figures beside it.
json timeline_results(double glibc_light, double jemalloc_light, double jemalloc_idle) {
  const auto row = [](const char* malloc, bool background, const char* load, double kept) {
    return json{{"malloc", malloc},
                {"background_thread", background},
                {"load", load},
                {"median_kept_unreclaimable", kept}};
  };
  return {{"config", json::object()},
          {"workloads", json::array()},
          {"retention_timelines",
           {{"horizon_s", 12.0},
            {"variants", json::array({row("glibc", false, "light", glibc_light),
                                      row("glibc", false, "idle", glibc_light),
                                      row("jemalloc", false, "light", jemalloc_light),
                                      row("jemalloc", false, "idle", jemalloc_idle),
                                      row("jemalloc", true, "idle", 0.05)})}}}};
}

TEST(Claims, RetentionOverTimeIsJudgedUnderLightLoadAtTheHorizon) {
  json c = {{"id", "m"},
            {"metric", "returns_memory"},
            {"workloads", {"fifo_uniform"}},
            {"retains", {"glibc"}},
            {"returns", {"jemalloc"}},
            {"threshold", 0.5},
            {"figure", "timeline_light"}};
  // Idle, jemalloc keeps everything (it purges only when called); under light load it returns.
  const json v =
      judge_partial(timeline_results(0.9, 0.1, 1.0), json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "reproduced") << v.at("detail");
  EXPECT_EQ(v.at("measured"), "glibc keeps 90%, jemalloc keeps 10%");
  const std::string detail = v.at("detail");
  EXPECT_NE(detail.find("12 s after the last free under light load"), std::string::npos) << detail;
  EXPECT_NE(detail.find("jemalloc idle 100%"), std::string::npos) << detail;
  EXPECT_NE(detail.find("background thread idle 5%"), std::string::npos) << detail;
  c["figure"] = "timeline_idle";  // the idle frame: jemalloc kept it all
  EXPECT_EQ(verdict_of(timeline_results(0.9, 0.1, 1.0), c), "refuted");
  c["returns"] = {"jemalloc", "mimalloc"};  // no mimalloc timeline: not decided
  c["figure"] = "timeline_light";
  EXPECT_EQ(verdict_of(timeline_results(0.9, 0.1, 1.0), c), "inconclusive");
  EXPECT_EQ(verdict_of(fast_and_slow, c), "not measured in this run");
}

TEST(Claims, ARatioClaimIsJudgedOnTheStopRulesIntervalWhenTheRunHasOne) {
  json r = fast_and_slow;  // over repetitions: 2.0x [~1.98-2.02], inside 2.1 +- 25 %
  const json c = claim("fast", "speedup_p50", 2.1);
  EXPECT_EQ(verdict_of(r, c), "reproduced");
  r["budget"] = {
      {"stop_rule", {{"confidence", 0.9875}, {"looks", 4}}},
      {"comparisons", json::array({{{"id", "c"}, {"value", 2.0}, {"low", 1.5}, {"high", 2.7}}})}};
  const json v = judge_partial(r, json{{"claims", json::array({c})}}).at(0);
  EXPECT_EQ(v.at("verdict"), "inconclusive") << v.at("detail");  // 1.5 is below 2.1 / 1.25
  EXPECT_NE(v.at("detail").get<std::string>().find("98.75% stop-rule interval"), std::string::npos)
      << v.at("detail");
  EXPECT_EQ(v.at("estimates").at(0).at("low"), 1.5);
}

TEST(Claims, TimeSizedCellsAreJudgedOnTheirOwnSamples) {
  json r = fast_and_slow;
  r["config"]["samples_per_repetition"] = 5000;  // a budgeted run's most, not what each cell had
  for (auto& cell : r["workloads"][0]["cells"])
    if (cell["timing"].is_object()) cell["timing"]["samples"] = 5 * 40;  // 40 a repetition
  EXPECT_EQ(verdict_of(r, claim("fast", "speedup_p50", 2.1)), "not judged: too few samples");
}

TEST(Claims, HeapClaimsNeedTheSeedsScale) {
  json small = heap_results();
  small["config"]["heap"]["iterations"] = 5;
  json c = {{"id", "h"},
            {"metric", "highest_ns_per_pair"},
            {"candidate", "h_uniform"},
            {"among_workloads", {"h_uniform", "h_exp", "h_log"}}};
  EXPECT_EQ(verdict_of(small, c), "not judged: too few samples");
}

TEST(Claims, LowestFigureClaims) {
  json lowest_cv = {{"id", "l"},
                    {"workload", "w"},
                    {"candidate", "std"},
                    {"metric", "lowest_cv"},
                    {"among", json::array({"std", "fast"})}};
  EXPECT_EQ(verdict_of(fast_and_slow, lowest_cv), "reproduced");
  lowest_cv["metric"] = "lowest_jitter";
  EXPECT_EQ(verdict_of(fast_and_slow, lowest_cv), "refuted");
  // The same ranking inside the noise: per-repetition CVs overlap.
  const json close =
      results_with(timing(200, 200, 40, 0.10, 5, 0.5), timing(100, 100, 10, 0.11, 5, 0.5));
  lowest_cv["metric"] = "lowest_cv";
  EXPECT_EQ(verdict_of(close, lowest_cv), "inconclusive");
}

TEST(Claims, VerdictsRoundTripThroughTheModelsCodecAndSchema) {
  json any_malloc = any_malloc_claim();
  any_malloc["seed"] = "002";
  any_malloc["source"] = "a seed's table";
  any_malloc["statement"] = "some malloc is faster";
  const json highest = {{"id", "h"},
                        {"metric", "highest_ns_per_pair"},
                        {"candidate", "h_uniform"},
                        {"among_workloads", {"h_uniform", "h_exp", "h_log"}}};
  const json malformed = {{"id", "m"}, {"statement", "names no metric"}};
  // Cells without repetitions: the pooled ratio stands alone, its estimate's low and high null.
  json pooled_only = any_malloc;
  pooled_only["id"] = "p";
  pooled_only.erase("candidate_mallocs");
  pooled_only["candidate_malloc"] = "mimalloc";
  json heap = heap_results();
  for (json& w : heap.at("workloads"))
    for (json& c : w.at("cells")) c.at("ns_per_pair").at("per_repetition") = json::array();
  const json claims = {{"claims", json::array({any_malloc, highest, malformed})}};
  const json one_claim = {{"claims", json::array({pooled_only})}};
  for (const json& written :
       {judge_partial(heap_results(), claims), judge_partial(heap, one_claim)}) {
    EXPECT_EQ(schema_violations(written, results_schema().at("properties").at("claims")),
              std::vector<std::string>());
    const auto read = model::read_json<std::vector<model::claim_verdict>>(written, "/claims");
    EXPECT_EQ(model::write_json(read), written);
    for (const json& v : written) {
      std::vector<std::string> keys;
      for (const auto& [key, value] : v.items()) keys.push_back(key);
      std::sort(keys.begin(), keys.end());
      std::vector<std::string> model_keys = model::field_names<model::claim_verdict>();
      std::sort(model_keys.begin(), model_keys.end());
      EXPECT_EQ(keys, model_keys) << v.at("id");
    }
  }
  const json v = judge_partial(heap_results(), claims);
  EXPECT_EQ(v[0].at("seed"), "002");
  EXPECT_EQ(v[0].at("candidate"), "malloc @ jemalloc|mimalloc|tcmalloc");
  EXPECT_TRUE(v[0].at("accepted").at("low").is_number_float());
  ASSERT_EQ(v[0].at("estimates").size(), 2u);  // tcmalloc has no cell
  EXPECT_EQ(v[0].at("estimates")[1].at("malloc"), "mimalloc");
  EXPECT_TRUE(v[0].at("estimates")[1].at("high").is_number_float());
  EXPECT_TRUE(v[1].at("accepted").is_null());  // a ranking claim has no ratio range
  EXPECT_EQ(v[1].at("estimates"), json::array());
  EXPECT_EQ(v[2].at("verdict"), "not measurable here");
  EXPECT_EQ(v[2].at("seed"), "");  // keys the claims file lacks are empty, not absent
  EXPECT_NE(v[2].at("detail").get<std::string>().find("malformed claim"), std::string::npos);
  const json single = judge_partial(heap, one_claim).at(0);
  EXPECT_EQ(single.at("verdict"), "not judged: too few samples");
  ASSERT_FALSE(single.at("estimates").empty());
  EXPECT_TRUE(single.at("estimates")[0].at("value").is_number_float());
  EXPECT_TRUE(single.at("estimates")[0].at("low").is_null());
  EXPECT_TRUE(single.at("estimates")[0].at("high").is_null());
}

TEST(Claims, AnUnknownMetricIsAnErrorNamingIt) {
  const json v = judge_partial(fast_and_slow,
                               json{{"claims", json::array({claim("fast", "speedup_p05", 2.0)})}})
                     .at(0);
  EXPECT_EQ(v.at("verdict"), "not measurable here");
  const std::string detail = v.at("detail");
  EXPECT_NE(detail.find("unknown metric 'speedup_p05'"), std::string::npos) << detail;
  EXPECT_NE(detail.find("speedup_p50"), std::string::npos) << detail;  // the known ones
}

TEST(ClaimMetrics, EachMetricIsOneEntrySayingWhatItReadsAndHowItIsJudged) {
  std::vector<std::string> names;
  for (const claim_metric& m : claim_metrics()) {
    const std::string name(m.name);
    names.push_back(name);
    EXPECT_EQ(find_claim_metric(name), &m) << name;
    switch (m.judged_as) {
      case claim_judging::ratio:
      case claim_judging::lowest:
      case claim_judging::highest:
        EXPECT_FALSE(m.figure.name.empty()) << name;
        EXPECT_NE(m.figure.read, nullptr) << name;
        EXPECT_FALSE(m.stop_figure.empty()) << name;
        break;
      case claim_judging::served_ratio:
        EXPECT_FALSE(m.served_estimate.empty()) << name;
        EXPECT_FALSE(m.stop_figure.empty()) << name;
        break;
      case claim_judging::returns_memory:
        EXPECT_TRUE(m.stop_figure.empty()) << name;  // not a ratio: the stop rule follows none
        break;
    }
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "a name twice";
  EXPECT_EQ(find_claim_metric("speedup_p05"), nullptr);
}

TEST(ClaimMetrics, AFigureWithASeriesToSubtractReadsTheDifferencePerRepetition) {
  model::cell cell;
  EXPECT_FALSE(find_claim_metric("jitter_ratio")->figure.read(cell));  // no timing: no figure
  cell.timing.emplace();
  cell.timing->repetition_p99_ns = {10.0, 12.0, 14.0};
  cell.timing->repetition_medians_ns = {4.0, 5.0};
  const auto series = [&](const char* metric) {
    return find_claim_metric(metric)->figure.read(cell).value().per_repetition;
  };
  EXPECT_EQ(series("jitter_ratio"), (std::vector<double>{6.0, 7.0}));
  EXPECT_EQ(series("p99_ratio"), (std::vector<double>{10.0, 12.0, 14.0}));
  EXPECT_TRUE(series("cv_ratio").empty());
}

TEST(Claims, TheSeedClaimsFileIsWellFormed) {
  const json& claims = seed_claims();
  EXPECT_EQ(claims_problems(claims), std::vector<std::string>());  // its schema
  EXPECT_GE(claims.at("claims").size(), 15u);
  // Each claim's frame is a frame `run` plans, and it measures the claim's workloads.
  EXPECT_NO_THROW(cells_for_claims(claims));
}

// Whether some problem mentions all of `words`.
bool mentioned(const std::vector<std::string>& problems, const std::vector<std::string>& words) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) {
    return std::all_of(words.begin(), words.end(),
                       [&](const std::string& w) { return p.find(w) != std::string::npos; });
  });
}

TEST(Claims, TheClaimsSchemaRefusesAMissingOrMisspelledKeyAndAnUnknownMetric) {
  const auto problems_with = [](const std::function<void(json&)>& change) {
    json claims = seed_claims();
    change(claims.at("claims").at(0));  // a speedup_p50 claim
    return claims_problems(claims);
  };
  EXPECT_TRUE(mentioned(problems_with([](json& c) { c.erase("candidate"); }),
                        {"/claims/0", "missing required key \"candidate\""}));
  EXPECT_TRUE(mentioned(problems_with([](json& c) { c["tolerence"] = c.at("tolerance"); }),
                        {"/claims/0", "unknown key \"tolerence\""}));
  EXPECT_TRUE(mentioned(problems_with([](json& c) { c["metric"] = "speedup_p05"; }),
                        {"/claims/0/metric", "\"speedup_p05\" is not one of"}));
  EXPECT_TRUE(mentioned(problems_with([](json& c) { c.erase("frame"); }),
                        {"/claims/0", "missing required key \"frame\""}));
  EXPECT_TRUE(mentioned(problems_with([](json& c) {
                          c["claimed"] = {1.0, 2.0, 3.0};
                        }),
                        {"/claims/0/claimed", "more than the maximum 2"}));
  EXPECT_TRUE(mentioned(
      problems_with([](json& c) {
        c = {
            {"id", "x"}, {"seed", "0"}, {"source", "s"}, {"statement", "s"}, {"measurable", false}};
      }),
      {"/claims/0", "missing required key \"reason\""}));
  // Each judging's keys: a ranking claim needs its `among`.
  EXPECT_TRUE(mentioned(problems_with([](json& c) {
                          c["metric"] = "lowest_cv";
                          c.erase("baseline");
                        }),
                        {"/claims/0", "missing required key \"among\""}));
}

// The schema lists the table's metrics by judging; adding a metric to the table without its name
// there (or the other way round) fails here.
TEST(Claims, TheClaimsSchemaNamesEveryMetricOfTheTableUnderItsJudging) {
  const json& defs = seed_claims_schema().at("$defs");
  const auto list_of = [](claim_judging j) {
    switch (j) {
      case claim_judging::ratio:
        return "ratio_metrics";
      case claim_judging::served_ratio:
        return "served_ratio_metrics";
      case claim_judging::lowest:
        return "lowest_metrics";
      case claim_judging::highest:
        return "highest_metrics";
      case claim_judging::returns_memory:
        break;
    }
    return "returns_memory_metrics";
  };
  std::map<std::string, std::set<std::string>> by_list;
  std::set<std::string> all;
  for (const claim_metric& m : claim_metrics()) {
    by_list[list_of(m.judged_as)].insert(std::string(m.name));
    all.insert(std::string(m.name));
  }
  for (const auto& [list, names] : by_list)
    EXPECT_EQ(defs.at(list).at("enum").get<std::set<std::string>>(), names) << list;
  const json& metric = defs.at("claim").at("properties").at("metric");
  EXPECT_EQ(metric.at("enum").get<std::set<std::string>>(), all);
}

// ---- the frames' figures the claims read, through the typed hook (model/claim_figures.hpp) ----

// A heap cell under `malloc` keeping `settled` of its growth 1 s after the last free.
model::cell heap_cell(const std::string& malloc, std::optional<double> settled) {
  model::cell c;
  c.head.strategy = "malloc";
  c.head.malloc = malloc;
  c.head.status = "ok";
  heap_cell_figures figures;
  if (settled) {
    figures.memory.emplace();
    figures.memory->retention.after_free_0ms = 1.0;
    figures.memory->retention.after_free_1s = settled;
  }
  c.figures = model::figures::of(figures);
  return c;
}

// A typed document (no JSON): `iterations` heap batches, glibc keeping 95 % and jemalloc 20 %.
model::document heap_document(std::size_t iterations) {
  model::document d;
  d.config.frames.set(heap_config_figures{{iterations, 5, "malloc"}});
  model::workload w;
  w.name = "h_uniform";
  w.cells = {heap_cell("glibc", 0.95), heap_cell("jemalloc", 0.2), heap_cell("mimalloc", {})};
  d.workloads.push_back(w);
  return d;
}

TEST(ClaimFigures, EachHeapPartGivesTheFiguresItHas) {
  const model::document d = heap_document(2000);
  EXPECT_EQ(model::claim_figures_of(d.config.frames).heap_iterations, std::size_t{2000});
  const std::map<std::string, double> kept =
      model::claim_figures_of(d.workloads[0].cells[0].figures).retention;
  const std::map<std::string, double> expected = {{"after_free_0ms", 1.0}, {"after_free_1s", 0.95}};
  EXPECT_EQ(kept, expected);  // only the settle times the cell measured
  EXPECT_TRUE(model::claim_figures_of(d.workloads[0].cells[2].figures).retention.empty());
  EXPECT_FALSE(model::claim_figures_of(d.parts).retention_timelines);  // no timelines ran

  heap_document_figures timelines;
  timelines.retention_timelines.emplace(retention_timelines_figures{});
  (*timelines.retention_timelines)->horizon_s = 30;
  retention_variant light;
  light.malloc = "jemalloc";
  light.load = "light";
  light.median_kept_unreclaimable = 0.07;
  (*timelines.retention_timelines)->variants = {light};
  const auto shares = model::claim_figures_of(model::figures::of(timelines)).retention_timelines;
  ASSERT_TRUE(shares);
  EXPECT_EQ(shares->horizon_s, 30);
  ASSERT_EQ(shares->variants.size(), 1u);
  EXPECT_EQ(shares->variants[0].malloc, "jemalloc");
  EXPECT_EQ(shares->variants[0].load, "light");
  EXPECT_EQ(shares->variants[0].median_kept_unreclaimable, 0.07);
}

TEST(ClaimFigures, TheServeSectionGivesEachVariantWithTheRatiosItHas) {
  serve_section section;
  serve_workload w;
  w.name = "request_mix";
  serve_cell baseline;
  baseline.head.strategy = "std";
  baseline.head.malloc = "glibc";
  serve_cell variant = baseline;
  variant.head.strategy = "pmr_monotonic_over_pool";
  variant.vs_std.emplace();
  variant.vs_std->cpu_per_request_ratio = serve_estimate{1.02, model::interval{0.97, 1.08}, 5};
  variant.vs_std->throughput_ratio_hey = serve_estimate{0.9, std::nullopt, 5};
  serve_cell failed = baseline;
  failed.head.strategy = "pmr_sync_pool";
  failed.head.reason = "the server died during hey";
  w.cells = {baseline, variant, failed};
  section.workloads = {w};
  serve_document_figures part;
  EXPECT_TRUE(model::claim_figures_of(model::figures::of(part)).served.empty());  // not served
  part.serve = section;

  const std::vector<model::served_variant> served =
      model::claim_figures_of(model::figures::of(part)).served;
  ASSERT_EQ(served.size(), 3u);
  EXPECT_EQ(served[0].workload, "request_mix");
  EXPECT_TRUE(served[0].vs_baseline.empty());  // the baseline has no ratios
  EXPECT_EQ(served[1].strategy, "pmr_monotonic_over_pool");
  ASSERT_EQ(served[1].vs_baseline.size(), 2u);  // the two ratios with a value, by their keys
  const model::served_ratio& cpu = served[1].vs_baseline.at("cpu_per_request_ratio");
  EXPECT_EQ(cpu.value, 1.02);
  ASSERT_TRUE(cpu.range);
  EXPECT_EQ(cpu.range->high, 1.08);
  EXPECT_EQ(cpu.repetitions, 5u);
  EXPECT_FALSE(served[1].vs_baseline.at("throughput_ratio_hey").range);
  EXPECT_EQ(served[2].reason, "the server died during hey");
}

TEST(ClaimFigures, APartWithoutTheHookAddsNothing) {
  const model::claim_figures none = model::claim_figures_of(model::figures::of(heap_sizes{}));
  EXPECT_FALSE(none.heap_iterations);
  EXPECT_TRUE(none.retention.empty() && none.served.empty() && !none.retention_timelines);
}

TEST(ClaimFigures, ClaimsAreJudgedOnATypedDocument) {
  const json returns_memory = {{"claims", json::array({{{"id", "m"},
                                                        {"metric", "returns_memory"},
                                                        {"workloads", {"h_uniform"}},
                                                        {"retains", {"glibc"}},
                                                        {"returns", {"jemalloc", "mimalloc"}},
                                                        {"threshold", 0.5}}})}};
  const model::claim_verdict v = claim_verdicts(heap_document(2000), returns_memory).at(0);
  EXPECT_EQ(v.verdict, "reproduced") << v.detail;
  EXPECT_EQ(v.measured, "glibc keeps 95%, jemalloc keeps 20%");
  EXPECT_NE(v.detail.find("not measured: mimalloc"), std::string::npos) << v.detail;
  const model::claim_verdict small = claim_verdicts(heap_document(500), returns_memory).at(0);
  EXPECT_EQ(small.verdict, "not judged: too few samples");
  EXPECT_EQ(small.detail, "500 batches per repetition; a verdict needs at least 1000");
}

}  // namespace
}  // namespace alloclab::lab
