#include <gtest/gtest.h>

#include "report/claims.hpp"

namespace lab {
namespace {

using json = nlohmann::json;

json timing(double p50, double mean, double jitter, double cv, std::vector<double> medians) {
    return {{"p50_ns", p50},  {"mean_ns", mean}, {"p99_ns", p50 + jitter},     {"jitter_ns", jitter},
            {"cv", cv},       {"throughput_per_s", 1e9 / mean}, {"repetition_medians_ns", medians}};
}

json results_with(json std_timing, json candidate_timing) {
    return {{"workloads",
             json::array({{{"name", "w"},
                           {"cells", json::array({{{"strategy", "std"}, {"status", "ok"}, {"reason", nullptr}, {"timing", std_timing}},
                                                  {{"strategy", "fast"}, {"status", "ok"}, {"reason", nullptr}, {"timing", candidate_timing}},
                                                  {{"strategy", "gone"}, {"status", "not_applicable"},
                                                   {"reason", "does not fit"}, {"timing", nullptr}}})}}})}};
}

json claim(const std::string& candidate, const std::string& metric, json claimed, double tolerance = 0.25) {
    return {{"id", "c"},          {"seed", "000"},        {"statement", "s"}, {"workload", "w"}, {"baseline", "std"},
            {"candidate", candidate}, {"metric", metric}, {"claimed", claimed}, {"tolerance", tolerance}};
}

std::string verdict_of(const json& results, const json& one_claim) {
    return judge_claims(results, json{{"claims", json::array({one_claim})}}).at(0).at("verdict");
}

const json results = results_with(timing(200, 200, 40, 0.10, {200, 201, 199, 202, 198}),
                                  timing(100, 100, 10, 0.20, {100, 101, 99, 102, 98}));

TEST(Claims, RatioInsideToleranceIsReproduced) {
    EXPECT_EQ(verdict_of(results, claim("fast", "speedup_p50", 2.1)), "reproduced");
    EXPECT_EQ(verdict_of(results, claim("fast", "jitter_ratio", 4.0)), "reproduced");
    EXPECT_EQ(verdict_of(results, claim("fast", "speedup_mean", json::array({1.5, 2.5}))), "reproduced");
}

TEST(Claims, RatioOutsideToleranceIsRefuted) {
    EXPECT_EQ(verdict_of(results, claim("fast", "speedup_p50", 0.3)), "refuted");  // "3x slower"
    EXPECT_EQ(verdict_of(results, claim("fast", "cv_ratio", 3.0)), "refuted");     // measured 0.5
}

TEST(Claims, MissingCellsAndUnmeasurableClaimsSayWhy) {
    const json verdicts = judge_claims(
        results, json{{"claims", json::array({claim("gone", "speedup_p50", 1.0), claim("absent", "speedup_p50", 1.0),
                                              {{"id", "x"}, {"measurable", false}, {"reason", "needs hardware"}}})}});
    for (const auto& v : verdicts) EXPECT_EQ(v.at("verdict"), "not measurable here");
    EXPECT_NE(verdicts[0].at("detail").get<std::string>().find("does not fit"), std::string::npos);
    EXPECT_NE(verdicts[1].at("detail").get<std::string>().find("not part of this run"), std::string::npos);
    EXPECT_EQ(verdicts[2].at("detail"), "needs hardware");
}

TEST(Claims, TailClaimsShowTheirPerRepetitionSpread) {
    json r = results;
    auto& cells = r["workloads"][0]["cells"];
    cells[0]["timing"]["repetition_p99_ns"] = {240, 241, 239, 242, 238};  // std jitter 40 in every repetition
    cells[1]["timing"]["repetition_p99_ns"] = {110, 111, 109, 112, 138};  // 10, except one repetition at 40
    const json verdicts =
        judge_claims(r, json{{"claims", json::array({claim("fast", "jitter_ratio", 4.0)})}});
    EXPECT_EQ(verdicts[0].at("verdict"), "reproduced");
    const std::string detail = verdicts[0].at("detail");
    EXPECT_NE(detail.find("per repetition 1.00-4.00"), std::string::npos) << detail;
    EXPECT_NE(detail.find("4 of 5 repetitions"), std::string::npos) << detail;
}

TEST(Claims, LowestFigureClaims) {
    json lowest_cv = {{"id", "l"}, {"workload", "w"}, {"candidate", "std"}, {"metric", "lowest_cv"},
                      {"among", json::array({"std", "fast"})}};
    EXPECT_EQ(verdict_of(results, lowest_cv), "reproduced");
    lowest_cv["metric"] = "lowest_jitter";
    EXPECT_EQ(verdict_of(results, lowest_cv), "refuted");
}

TEST(Claims, TheSeedClaimsFileIsWellFormed) {
    const json& claims = seed_claims();
    ASSERT_TRUE(claims.at("claims").is_array());
    EXPECT_GE(claims.at("claims").size(), 15u);
    for (const auto& c : claims.at("claims")) {
        ASSERT_TRUE(c.contains("id"));
        if (!c.value("measurable", true)) {
            EXPECT_TRUE(c.contains("reason")) << c.at("id");
            continue;
        }
        EXPECT_TRUE(c.contains("workload") && c.contains("candidate") && c.contains("metric")) << c.at("id");
    }
}

}  // namespace
}  // namespace lab
