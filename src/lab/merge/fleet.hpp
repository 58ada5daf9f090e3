// The fleet report: one configuration and build measured on several machine types, side by side.
// For each seed claim and each comparison (every cell's ratio to its workload's baseline, judged
// by stats/decision.hpp's one rule with the default noise floor; every placement-driven verdict),
// the verdict on each machine, then which conclusions hold on every machine, which flip, which
// are decided on some machines only, which were measured on some machines only (e.g. the
// placement twin's cells), and the environment facts that go with each difference:
// the facts (CPU model, glibc, THP, copy cliff, placement twin, kernel, CPUs) whose values split
// the machines exactly as the verdicts do.
//
// It reads, per machine's results model: environment (the facts), config.placement_twin,
// significance.enough_repetitions, claims[] {id, statement, verdict}, workloads[] {name, frame,
// cells[] {strategy, malloc, vs_std {p_value, speedup_p50 | speedup_ns_per_pair, intervals}}}
// and each frame's placement verdicts (merge/frame_figures_reader.hpp). fleet.json is the
// fleet_report below, written by its field lists (model/fields.hpp) alone.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/document.hpp"

namespace alloclab::lab {

struct fleet_machine {
  std::string label;  // "A", "B", ...
  std::string path;   // where its results were written (or read)
  model::document results;
};

// agreement words of a row
inline constexpr const char* holds_everywhere = "holds on every machine";
inline constexpr const char* flips = "flips";
inline constexpr const char* decided_on_some = "decided on some machines only";
inline constexpr const char* measured_on_some = "measured on some machines only";
inline constexpr const char* undecided_everywhere = "undecided on every machine";

// An environment fact's value on each machine: a string, a number, a bool or null.
using fact_values = std::map<std::string, nlohmann::json>;

struct fleet_machine_entry {
  std::string label, path;
  fact_values facts;  // fact name -> its value on this machine
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.label, "label", "A, B, ...");
    field(s.path, "path", "its results.json");
    field(s.facts, "facts", "fact name -> value");
  }
};

struct fact_split {
  std::string fact;
  fact_values values;  // machine label -> value
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.fact, "fact", "the environment fact");
    field(s.values, "values", "machine label -> its value");
  }
};

struct fleet_row {
  std::string id, what;
  std::map<std::string, std::string> verdicts;                // machine label -> text
  std::map<std::string, std::optional<std::string>> decided;  // machine label -> direction
  std::string agreement;
  std::vector<fact_split> facts;  // those that go with a difference
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.id, "id", "the conclusion");
    field(s.what, "what", "it in words");
    field(s.verdicts, "verdicts", "machine label -> verdict text");
    field(s.decided, "decided", "machine label -> decided direction or null");
    field(s.agreement, "agreement", "one of the agreement words");
    field(s.facts, "facts", "the facts that split the machines as the verdicts do");
  }
};

struct fleet_count {
  model::omittable<std::size_t> claims, comparisons;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.claims, "claims", "claim rows");
    field(s.comparisons, "comparisons", "comparison rows");
  }
};

struct fleet_report {
  std::string schema = "alloclab-fleet";
  std::vector<fleet_machine_entry> machines;
  std::vector<std::string> differing_facts;
  std::vector<fleet_row> claims, comparisons;
  std::map<std::string, fleet_count> counts;  // agreement word -> rows of each kind
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.schema, "schema", "always `alloclab-fleet`");
    field(s.machines, "machines", "each machine and its facts");
    field(s.differing_facts, "differing_facts", "facts whose values differ");
    field(s.claims, "claims", "one row per seed claim");
    field(s.comparisons, "comparisons", "one row per comparison");
    field(s.counts, "counts", "agreement word -> rows of each kind");
  }
};

fleet_report fleet_document(const std::vector<fleet_machine>& machines);

// fleet.json: the report through its field lists.
nlohmann::json fleet_json(const fleet_report& fleet);

// fleet.md: the machines, the differences, then the side-by-side tables.
std::string fleet_markdown(const fleet_report& fleet);

}  // namespace alloclab::lab
