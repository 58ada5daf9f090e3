// The fleet report: one configuration and build measured on several machine types, side by side.
// For each seed claim and each comparison (every cell's ratio to its workload's baseline, judged
// by stats/decision.hpp's one rule with the default noise floor; every placement-driven verdict),
// the verdict on each machine, then which conclusions hold on every machine, which flip, which
// are decided on some machines only, which were measured on some machines only (e.g. the
// placement twin's cells), and the environment facts that go with each difference:
// the facts (CPU model, glibc, THP, copy cliff, placement twin, kernel, CPUs) whose values split
// the machines exactly as the verdicts do.
//
// It reads, per machine's results: environment (the facts), config.placement_twin,
// significance.enough_repetitions, claims[] {id, statement, verdict}, and workloads[] (serve too)
// {name, frame, cells[] {strategy, malloc, vs_std {p_value, speedup_p50 | speedup_ns_per_pair,
// intervals}}, placement.strategies[] {strategy, placement_driven}}.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

struct fleet_machine {
  std::string label;  // "A", "B", ...
  std::string path;   // where its results were written (or read)
  nlohmann::json results;
};

// agreement words of a row
inline constexpr const char* holds_everywhere = "holds on every machine";
inline constexpr const char* flips = "flips";
inline constexpr const char* decided_on_some = "decided on some machines only";
inline constexpr const char* measured_on_some = "measured on some machines only";
inline constexpr const char* undecided_everywhere = "undecided on every machine";

// {schema "alloclab-fleet", machines [{label, path, facts}], differing_facts [names],
//  claims [row], comparisons [row], counts {agreement word -> {claims, comparisons}}}, where a row
// is {id, what, verdicts {label -> text}, decided {label -> direction or null}, agreement,
// facts [{fact, values {label -> value}}]}.
nlohmann::json fleet_document(const std::vector<fleet_machine>& machines);

// fleet.md: the machines, the differences, then the side-by-side tables.
std::string fleet_markdown(const nlohmann::json& fleet);

}  // namespace alloclab::lab
