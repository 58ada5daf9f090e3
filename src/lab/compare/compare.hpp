// `alloclab compare A.json B.json`: every cell (workload, strategy, malloc) of two results files
// side by side, like Google Benchmark's compare.py. For a cell in both: B ÷ A at p50 with a 95 %
// bootstrap interval over repetition medians and a Mann-Whitney U p over the same medians.
//
// Example:
//   const nlohmann::json c = alloclab::lab::compare_results(a, b, "a.json", "b.json");
//   std::cout << alloclab::lab::render_comparison_text(c);
//   const bool fail = alloclab::lab::regressions(c, 5.0) > 0;  // decided and > 5 % slower
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "stats/decision.hpp"

namespace alloclab::lab {

// A program-frame run's combinations are cells of a workload "program `COMMAND` CPU", timed by
// the CPU time of each run.
// {a, b, warnings: [..], revisions, noise_floor_percent, common: [{workload, strategy, malloc,
//  a_p50_ns, b_p50_ns, ratio, interval {low, high} | null, p_value, decision, significant,
//  note}], only_a: [..], only_b: [..]}. A change is `significant` by the lab's one rule
// (stats/decision.hpp) beyond the noise floor. Throws usage_error when no cell is in both.
nlohmann::json compare_results(const nlohmann::json& a, const nlohmann::json& b,
                               const std::string& a_name, const std::string& b_name,
                               double noise_floor_percent = default_noise_floor_percent);

// Decided slowdowns (beyond the noise floor) of more than `percent` % (ratio > 1 + percent/100).
std::size_t regressions(const nlohmann::json& comparison, double percent);

std::string render_comparison_text(const nlohmann::json& comparison);
std::string render_comparison_markdown(const nlohmann::json& comparison);
std::string render_comparison_html(const nlohmann::json& comparison);

}  // namespace alloclab::lab
