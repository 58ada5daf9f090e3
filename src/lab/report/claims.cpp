#include "claims.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "embedded_files.hpp"
#include "stats/stats.hpp"

namespace lab {
namespace {

using json = nlohmann::json;

constexpr const char* reproduced = "reproduced";
constexpr const char* refuted = "refuted";
constexpr const char* not_measurable = "not measurable here";

struct outcome {
    std::string verdict;
    std::string measured;
    std::string detail;
};

const json* find_cell(const json& results, const std::string& workload, const std::string& strategy) {
    for (const auto& w : results.at("workloads")) {
        if (w.at("name") != workload) continue;
        for (const auto& c : w.at("cells"))
            if (c.at("strategy") == strategy) return &c;
    }
    return nullptr;
}

// The timing block of a cell, or the reason there is none.
std::optional<std::string> why_untimed(const json& results, const std::string& workload, const std::string& strategy,
                                       const json*& timing) {
    const json* cell = find_cell(results, workload, strategy);
    if (!cell) return fmt::format("{} x {} was not part of this run", workload, strategy);
    if (cell->at("timing").is_null()) {
        const json& reason = cell->at("reason");
        return fmt::format("{} x {} has no number: {}", workload, strategy,
                           reason.is_string() ? reason.get<std::string>() : cell->at("status").get<std::string>());
    }
    timing = &cell->at("timing");
    return std::nullopt;
}

// Ratio metrics, oriented so that > 1 means the candidate is better.
std::optional<double> ratio_metric(const std::string& metric, const json& base, const json& cand) {
    auto quotient = [](double num, double den) { return den > 0 ? std::optional<double>(num / den) : std::nullopt; };
    if (metric == "speedup_p50") return quotient(base["p50_ns"], cand["p50_ns"]);
    if (metric == "speedup_mean") return quotient(base["mean_ns"], cand["mean_ns"]);
    if (metric == "p99_ratio") return quotient(base["p99_ns"], cand["p99_ns"]);
    if (metric == "jitter_ratio") return quotient(base["jitter_ns"], cand["jitter_ns"]);
    if (metric == "cv_ratio") return quotient(base["cv"], cand["cv"]);
    if (metric == "throughput_ratio") return quotient(cand["throughput_per_s"], base["throughput_per_s"]);
    return std::nullopt;
}

bool is_speed_metric(const std::string& metric) { return metric == "speedup_p50" || metric == "speedup_mean"; }

// Tail metrics move from repetition to repetition; their per-repetition ratios, paired by
// repetition (both cells ran in it), show how far one pooled figure can be trusted.
std::vector<double> per_repetition_tail_ratios(const std::string& metric, const json& base, const json& cand) {
    std::vector<double> ratios;
    if (metric != "jitter_ratio" && metric != "p99_ratio") return ratios;
    if (!base.contains("repetition_p99_ns") || !cand.contains("repetition_p99_ns")) return ratios;
    const auto bp99 = base["repetition_p99_ns"].get<std::vector<double>>();
    const auto cp99 = cand["repetition_p99_ns"].get<std::vector<double>>();
    const auto bp50 = base["repetition_medians_ns"].get<std::vector<double>>();
    const auto cp50 = cand["repetition_medians_ns"].get<std::vector<double>>();
    if (bp99.size() != cp99.size() || bp50.size() != bp99.size() || cp50.size() != cp99.size()) return ratios;
    for (std::size_t i = 0; i < bp99.size(); ++i) {
        const double b = metric == "p99_ratio" ? bp99[i] : bp99[i] - bp50[i];
        const double c = metric == "p99_ratio" ? cp99[i] : cp99[i] - cp50[i];
        if (c > 0) ratios.push_back(b / c);
    }
    std::sort(ratios.begin(), ratios.end());
    return ratios;
}

outcome judge_ratio(const json& results, const json& claim) {
    const std::string workload = claim.at("workload");
    const std::string metric = claim.at("metric");
    const json* base = nullptr;
    const json* cand = nullptr;
    if (auto why = why_untimed(results, workload, claim.at("baseline"), base)) return {not_measurable, "-", *why};
    if (auto why = why_untimed(results, workload, claim.at("candidate"), cand)) return {not_measurable, "-", *why};

    const std::optional<double> measured = ratio_metric(metric, *base, *cand);
    if (!measured) return {not_measurable, "-", fmt::format("metric {} is undefined here (zero denominator)", metric)};

    const json& claimed = claim.at("claimed");
    const double low = claimed.is_array() ? claimed.at(0).get<double>() : claimed.get<double>();
    const double high = claimed.is_array() ? claimed.at(1).get<double>() : claimed.get<double>();
    // The same factor above and below: "1.4x" with tolerance 0.2 accepts 1.17x to 1.68x.
    const double tolerance = claim.value("tolerance", 0.2);
    const double accept_low = low / (1 + tolerance);
    const double accept_high = high * (1 + tolerance);
    const bool inside = *measured >= accept_low && *measured <= accept_high;

    std::string detail = fmt::format("claimed {}, accepted {:.2f}-{:.2f}", claimed.dump(), accept_low, accept_high);
    if (is_speed_metric(metric)) {
        const mann_whitney_result test = mann_whitney_u(base->at("repetition_medians_ns").get<std::vector<double>>(),
                                                        cand->at("repetition_medians_ns").get<std::vector<double>>());
        detail += fmt::format("; U test on repetition medians p={:.3g}", test.p_value);
    }
    const std::vector<double> spread = per_repetition_tail_ratios(metric, *base, *cand);
    if (!spread.empty()) {
        detail += fmt::format("; per repetition {:.2f}-{:.2f} (median {:.2f})", spread.front(), spread.back(),
                              percentile_sorted(spread, 0.5));
        const auto agreeing = std::count_if(spread.begin(), spread.end(),
                                          [&](double r) { return r >= accept_low && r <= accept_high; });
        if (agreeing > 0 && static_cast<std::size_t>(agreeing) < spread.size())
            detail += fmt::format(", {} of {} repetitions inside the accepted range: unstable verdict", agreeing,
                                  spread.size());
    }
    return {inside ? reproduced : refuted, fmt::format("{:.2f}x", *measured), detail};
}

outcome judge_lowest(const json& results, const json& claim, const std::string& field) {
    const std::string workload = claim.at("workload");
    const std::string candidate = claim.at("candidate");
    std::vector<std::pair<std::string, double>> figures;
    for (const auto& name : claim.at("among")) {
        const json* timing = nullptr;
        if (auto why = why_untimed(results, workload, name, timing)) return {not_measurable, "-", *why};
        figures.emplace_back(name.get<std::string>(), timing->at(field).get<double>());
    }
    std::sort(figures.begin(), figures.end(), [](auto& a, auto& b) { return a.second < b.second; });
    const bool lowest = figures.front().first == candidate;
    std::string listing;
    for (const auto& [name, value] : figures)
        listing += fmt::format("{}{} {}", listing.empty() ? "" : ", ", name,
                               field == "cv" ? fmt::format("{:.1f}%", 100 * value) : fmt::format("{:.0f} ns", value));
    return {lowest ? reproduced : refuted, fmt::format("lowest: {}", figures.front().first), field + ": " + listing};
}

outcome judge(const json& results, const json& claim) {
    if (!claim.value("measurable", true)) return {not_measurable, "-", claim.value("reason", "")};
    const std::string metric = claim.at("metric");
    if (metric == "lowest_cv") return judge_lowest(results, claim, "cv");
    if (metric == "lowest_jitter") return judge_lowest(results, claim, "jitter_ns");
    return judge_ratio(results, claim);
}

}  // namespace

const json& seed_claims() {
    static const json claims = json::parse(embedded::seed_claims_json);
    return claims;
}

json judge_claims(const json& results, const json& claims) {
    json verdicts = json::array();
    for (const auto& claim : claims.at("claims")) {
        outcome o;
        try {
            o = judge(results, claim);
        } catch (const json::exception& e) {
            o = {not_measurable, "-", fmt::format("malformed claim or results: {}", e.what())};
        }
        verdicts.push_back({{"id", claim.at("id")},
                            {"seed", claim.value("seed", "")},
                            {"source", claim.value("source", "")},
                            {"statement", claim.value("statement", "")},
                            {"workload", claim.value("workload", "")},
                            {"candidate", claim.value("candidate", "")},
                            {"metric", claim.value("metric", "")},
                            {"verdict", o.verdict},
                            {"measured", o.measured},
                            {"detail", o.detail}});
    }
    return verdicts;
}

}  // namespace lab
