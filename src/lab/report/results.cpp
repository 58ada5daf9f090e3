#include "results.hpp"

#include <fmt/format.h>

#include "environment.hpp"
#include "stats/stats.hpp"

namespace lab {
namespace {

const char* status_name(cell_status s) {
    switch (s) {
        case cell_status::ok: return "ok";
        case cell_status::overflowed: return "overflowed";
        case cell_status::not_applicable: return "not_applicable";
    }
    return "unknown";
}

nlohmann::json or_null(const std::string& text) { return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text); }

nlohmann::json footprint_json(const workload_footprint& f) {
    return {{"allocations", f.allocations},
            {"bytes_requested", f.bytes_requested},
            {"peak_bytes", f.peak_bytes},
            {"peak_blocks", f.peak_blocks},
            {"largest_request", f.largest_request},
            {"monotonic_footprint", f.monotonic_footprint},
            {"suggested_arena_bytes", f.suggested_arena_bytes}};
}

nlohmann::json timing_json(const cell_measurement& c, std::size_t batch) {
    const summary s = summarize(c.samples_ns);
    return {{"samples", s.count},
            {"iterations_per_sample", batch},
            {"timed_iterations", c.timed_iterations},
            {"min_ns", s.min},
            {"p50_ns", s.p50},
            {"p90_ns", s.p90},
            {"p99_ns", s.p99},
            {"p999_ns", s.p999},
            {"max_ns", s.max},
            {"mean_ns", s.mean},
            {"stddev_ns", s.stddev},
            {"cv", s.cv},
            {"jitter_ns", s.jitter},
            {"throughput_per_s", s.mean > 0 ? 1e9 / s.mean : 0.0},
            {"repetition_medians_ns", c.repetition_medians_ns},
            {"repetition_p99_ns", c.repetition_p99_ns}};
}

nlohmann::json cell_json(const cell_measurement& c, std::size_t batch) {
    const bool timed = c.status == cell_status::ok && !c.samples_ns.empty();
    const bool counted = c.status != cell_status::not_applicable;
    nlohmann::json j = {{"strategy", c.strategy},
                        {"status", status_name(c.status)},
                        {"reason", or_null(c.reason)},
                        {"warning", or_null(c.warning)},
                        {"buffer_bytes", c.buffer_bytes},
                        {"heap", nullptr},
                        {"upstream_fallbacks_per_iteration", nullptr},
                        {"timing", nullptr},
                        {"os", nullptr},
                        {"vs_std", nullptr}};
    if (counted) {
        j["heap"] = {{"allocations_per_iteration", c.heap_allocations_per_iteration},
                     {"bytes_per_iteration", c.heap_bytes_per_iteration}};
        j["upstream_fallbacks_per_iteration"] = c.upstream_fallbacks_per_iteration;
    }
    if (timed) {
        j["timing"] = timing_json(c, batch);
        const double per_thousand =
            c.timed_iterations ? 1000.0 * static_cast<double>(c.minor_faults) / static_cast<double>(c.timed_iterations) : 0.0;
        j["os"] = {{"minor_faults_per_1000_iterations", per_thousand}, {"peak_rss_growth_kib", c.peak_rss_growth_kib}};
    }
    return j;
}

// Ratios against the baseline cell of the same workload, with the U test over repetition medians.
void add_comparison(nlohmann::json& cell, const nlohmann::json& baseline, bool test_has_power) {
    if (cell["timing"].is_null() || baseline["timing"].is_null()) return;
    const auto& t = cell["timing"];
    const auto& b = baseline["timing"];
    const auto x = b["repetition_medians_ns"].get<std::vector<double>>();
    const auto y = t["repetition_medians_ns"].get<std::vector<double>>();
    const mann_whitney_result test = mann_whitney_u(x, y);
    auto ratio = [](double num, double den) { return den > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr); };
    cell["vs_std"] = {{"speedup_p50", ratio(b["p50_ns"], t["p50_ns"])},
                      {"speedup_mean", ratio(b["mean_ns"], t["mean_ns"])},
                      {"p99_ratio", ratio(b["p99_ns"], t["p99_ns"])},
                      {"jitter_ratio", ratio(b["jitter_ns"], t["jitter_ns"])},
                      {"cv_ratio", ratio(b["cv"], t["cv"])},
                      {"throughput_ratio", ratio(t["throughput_per_s"], b["throughput_per_s"])},
                      {"mann_whitney_u", test.u},
                      {"p_value", test.p_value},
                      {"exact_test", test.exact},
                      {"significant", test_has_power && test.p_value < significance_alpha},
                      {"mark", significance_mark(test.p_value, test_has_power)}};
}

nlohmann::json workload_json(const workload_measurement& w, bool test_has_power) {
    nlohmann::json cells = nlohmann::json::array();
    const nlohmann::json* baseline = nullptr;
    for (const auto& c : w.cells) cells.push_back(cell_json(c, w.batch_size));
    for (const auto& c : cells)
        if (c["strategy"] == baseline_strategy) baseline = &c;
    if (baseline)
        for (auto& c : cells)
            if (&c != baseline) add_comparison(c, *baseline, test_has_power);
    return {{"name", w.name},
            {"description", w.description},
            {"checksum", fmt::format("{:#018x}", w.checksum)},
            {"batch_size", w.batch_size},
            {"batched", w.batch_size > 1},
            {"footprint", footprint_json(w.footprint)},
            {"cells", cells}};
}

std::vector<std::string> run_warnings(const run_measurement& run, bool debug, bool test_has_power, double min_p) {
    std::vector<std::string> warnings;
    if (debug) warnings.push_back("DEBUG build: these numbers measure unoptimised code and mean nothing");
    if (!test_has_power)
        warnings.push_back(fmt::format("{} repetitions are too few for the Mann-Whitney U test to reach p < {} "
                                       "(smallest possible p = {:.3f}); significance marks are '?'",
                                       run.config.repetitions, significance_alpha, min_p));
    for (const auto& w : run.workloads)
        for (const auto& c : w.cells) {
            if (c.status == cell_status::overflowed)
                warnings.push_back(fmt::format("{} / {}: {}", w.name, c.strategy, c.reason));
            if (!c.warning.empty()) warnings.push_back(fmt::format("{} / {}: {}", w.name, c.strategy, c.warning));
        }
    return warnings;
}

}  // namespace

std::string significance_mark(double p_value, bool test_has_power) {
    if (!test_has_power) return "?";
    if (p_value < 0.01) return "**";
    if (p_value < significance_alpha) return "*";
    return "n.s.";
}

nlohmann::json build_results(const run_measurement& run, const results_context& context) {
    const bool debug = !context.build.benchmark_ready();
    const double min_p = mann_whitney_min_p(run.config.repetitions, run.config.repetitions);
    const bool test_has_power = min_p < significance_alpha;

    nlohmann::json workloads = nlohmann::json::array();
    for (const auto& w : run.workloads) workloads.push_back(workload_json(w, test_has_power));

    return {
        {"schema", "alloclab-results"},
        {"schema_version", results_schema_version},
        {"created_utc", context.created_utc},
        {"command", context.command_line},
        {"debug_build", debug},
        {"config",
         {{"workloads", run.config.workloads},
          {"strategies", run.config.strategies},
          {"samples_per_repetition", run.config.samples_per_repetition},
          {"repetitions", run.config.repetitions},
          {"seed", run.config.seed},
          {"quick", run.config.quick},
          {"counted_iterations", run.config.counted_iterations}}},
        {"environment", describe_environment(context.build)},
        {"timer", describe_timer(run.clock)},
        {"duration_seconds", run.duration_seconds},
        {"significance",
         {{"test", "Mann-Whitney U, two-sided, over per-repetition medians"},
          {"alpha", significance_alpha},
          {"smallest_possible_p", min_p},
          {"enough_repetitions", test_has_power}}},
        {"warnings", run_warnings(run, debug, test_has_power, min_p)},
        {"workloads", workloads},
        {"claims", nlohmann::json::array()},
    };
}

}  // namespace lab
