// Test plan: the results model (src/lab/model) is the one description of results.json; its JSON,
// its schema and its docs all come from each struct's one field list.
//   a document with every key the schema names filled in (each frame's parts too) reads into the
//     model and writes back unchanged, and is valid against the schema
//     (AFullyPopulatedDocumentRoundTrips);
//   a version 6 file (the report fixture) reads in and writes back every key it had with the same
//     value, less only the null keys of frames that did not measure that cell or workload, plus
//     the new repetition summary (AVersion6FileKeepsItsKeysAndValues);
//   reading again what was written gives the same document (WritingWhatWasReadIsStable);
//   a file of a version it does not read, or without a key the model needs, is refused with where
//     and why (RefusesWhatItCannotRead);
//   the committed results.schema.json is the generated schema (CommittedSchemaIsTheGeneratedOne);
//   docs/results-schema.md holds the generated field tables (DocsTablesAreTheGeneratedOnes);
//   every key of the schema says what it means (EveryKeyIsDocumented);
//   budget.spread is per frame and workload in cell order, over cells with a process, with the
//     upper median of their CVs (BudgetSpreadIsPerWorkloadInCellOrder); a file written before it
//     gets it from its cells when read, and one that has it keeps it
//     (AFileWithoutBudgetSpreadGetsItWhenRead);
//   a file whose simulation predates its pause account still reads and is valid
//     (AFileWhoseSimulationHasNoPauseAccountStillReads).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/document.hpp"
#include "model/schema.hpp"
#include "model/versions.hpp"
#include "results/schema_check.hpp"
#include "model_agreement.hpp"
#include "report_fixture.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using cli_support::read_file;
const fs::path source_dir = fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path();

bool allows(const json& type, const char* name) {
  return type == name ||
         (type.is_array() && std::find(type.begin(), type.end(), name) != type.end());
}

json sample_of(const json& schema);

// One object with every property; each allOf branch's `then` merged in when `branch` is given.
json sample_object(const json& schema, const json* branch) {
  json out = json::object();
  const json properties = schema.value("properties", json::object());
  for (const auto& [key, sub] : properties.items()) out[key] = sample_of(sub);
  if (schema.contains("additionalProperties"))
    out["key"] = sample_of(schema["additionalProperties"]);
  if (branch == nullptr) return out;
  for (const auto& [key, value] : branch->at("if").at("properties").items())
    out[key] = value.at("const");
  const json branch_properties = branch->at("then").value("properties", json::object());
  for (const auto& [key, sub] : branch_properties.items()) {
    if (key != "cells") {
      out[key] = sample_of(sub);
      continue;
    }
    for (auto& cell : out["cells"])
      for (const auto& [cell_key, cell_sub] : sub.at("items").at("properties").items())
        cell[cell_key] = sample_of(cell_sub);
  }
  return out;
}

// A value of every key the schema names: the first enum value, the minimum, one item per array
// (one per frame for workloads, each with its frame's keys).
json sample_of(const json& schema) {
  if (schema.contains("enum")) return schema["enum"].at(0);
  const json type = schema.value("type", json("any"));
  if (allows(type, "object")) return sample_object(schema, nullptr);
  if (allows(type, "array")) {
    const json& items = schema.at("items");
    json out = json::array();
    if (!items.contains("allOf")) return json::array({sample_of(items)});
    for (const json& branch : items["allOf"]) out.push_back(sample_object(items, &branch));
    return out;
  }
  if (allows(type, "integer")) {
    if (schema.value("minimum", 3.0) > 3) return schema["minimum"];
    return 3;
  }
  if (allows(type, "number"))
    return std::min(schema.value("minimum", 0.0) + 0.25, schema.value("maximum", 1e9));
  if (allows(type, "string")) return "text";
  if (allows(type, "boolean")) return true;
  return "any";
}

json populated_document() {
  json d = sample_of(model::results_json_schema());
  d["schema_version"] = model::schema_version;
  return d;
}

TEST(ResultsModel, AFullyPopulatedDocumentRoundTrips) {
  const json d = populated_document();
  ASSERT_GE(d.at("workloads").size(), 4u) << "one workload per frame with workloads";
  EXPECT_TRUE(d.contains("serve") && d.contains("program") && d.contains("heap_retention"));
  EXPECT_TRUE(d.at("config").contains("heap") && d.at("config").contains("replay"));
  EXPECT_EQ(model::to_json(model::from_json(d)), d);
  const auto problems = schema_violations(d, model::results_json_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(ResultsModel, AVersion6FileKeepsItsKeysAndValues) {
  const json read = report_fixture::results();
  ASSERT_EQ(read.at("schema_version"), 6);
  const json written = model::to_json(model::from_json(read));
  model_agreement::expect_same_keys(read, written, "");
  EXPECT_EQ(written.at("schema_version"), model::schema_version);
  const json& timing = written.at("workloads").at(0).at("cells").at(0).at("timing");
  EXPECT_GT(timing.at("repetition_means_summary").at("mean_ns").get<double>(), 0);
}

TEST(ResultsModel, TheFixtureAgreesWithTheModel) {
  model_agreement::expect_model_agrees(report_fixture::results(), "report_fixture/results.json");
}

// The agreement check itself: a key the writer adds without adding it to the model is found,
// null or not; a null key of another frame's cell (version 6) is not.
TEST(ResultsModel, AKeyTheModelDoesNotKnowIsFound) {
  json d = report_fixture::results();
  EXPECT_EQ(model::undescribed_keys(d), std::vector<std::string>());
  ASSERT_EQ(d["workloads"][0]["frame"], "batch");
  ASSERT_TRUE(d["workloads"][0]["cells"][0].contains("memory_frame"));
  d["workloads"][0]["cells"][0]["new_figure"] = 1.5;
  d["workloads"][0]["cells"][0]["timing"]["new_percentile"] = nullptr;
  d["new_section"] = nullptr;
  d["budget"] = {{"mode", "fixed"}, {"new_account", 3}};
  // A served cell of version 6 carries every lab cell's keys as null, but only as null.
  json served = {{"strategy", "std"},
                 {"malloc", "glibc"},
                 {"status", "ok"},
                 {"timing", nullptr},
                 {"os", nullptr}};
  served["memory_frame"] = nullptr;
  served["replay"] = 2;
  d["serve"] = {{"workloads", {{{"name", "w"}, {"cells", {served}}}}}};
  EXPECT_EQ(model::undescribed_keys(d),
            (std::vector<std::string>{
                "/budget/new_account", "/new_section", "/serve/workloads/0/cells/0/replay",
                "/workloads/0/cells/0/new_figure", "/workloads/0/cells/0/timing/new_percentile"}));
}

TEST(ResultsModel, WritingWhatWasReadIsStable) {
  const json once = model::to_json(model::from_json(report_fixture::results()));
  EXPECT_EQ(model::to_json(model::from_json(once)), once);
}

std::string refusal(const json& document) {
  try {
    model::from_json(document);
  } catch (const model::model_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ResultsModel, RefusesWhatItCannotRead) {
  json d = report_fixture::results();
  d["schema_version"] = 5;
  EXPECT_EQ(refusal(d), "schema_version is 5, this alloclab reads versions 6 to 7");
  d = report_fixture::results();
  d["workloads"][0]["cells"][1].erase("status");
  EXPECT_EQ(refusal(d), "/workloads/0/cells/1: missing key \"status\"");
  d = report_fixture::results();
  d["workloads"][1]["heap_spec"]["iterations"] = "many";
  EXPECT_EQ(refusal(d), "/workloads/1/heap_spec/iterations: expected an integer, found string");
  EXPECT_EQ(refusal(json::array()),
            "not an alloclab results file (no \"schema\": \"alloclab-results\" at the top level)");
}

TEST(ResultsModel, CommittedSchemaIsTheGeneratedOne) {
  const std::string committed = read_file(source_dir / "src/lab/results/results.schema.json");
  EXPECT_EQ(committed, model::results_json_schema().dump(2) + "\n")
      << "regenerate it: build/release/alloclab schema > src/lab/results/results.schema.json";
}

constexpr const char* begin_marker = "<!-- BEGIN field tables: generated from src/lab/model";
constexpr const char* end_marker = "<!-- END field tables -->";

TEST(ResultsModel, DocsTablesAreTheGeneratedOnes) {
  const std::string page = read_file(source_dir / "docs/results-schema.md");
  const auto begin = page.find(begin_marker);
  const auto end = page.find(end_marker);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const auto first = page.find('\n', begin) + 1;
  EXPECT_EQ(page.substr(first, end - first), model::results_field_tables())
      << "regenerate them: scripts/update-results-schema.sh";
}

model::budget_cell spread_cell(const char* frame, const char* workload, std::size_t processes,
                               std::optional<std::size_t> samples, std::optional<double> between,
                               std::optional<double> within, const char* spread) {
  model::budget_cell c;
  c.name = {frame, workload, "std", "glibc"};
  c.processes = processes;
  c.samples_per_repetition = samples;
  c.between_cv = between;
  c.within_cv = within;
  c.spread = spread;
  return c;
}

std::vector<model::budget_cell> spread_cells() {
  return {spread_cell("batch", "w", 3, 100, 0.01, 0.02, "within processes"),
          spread_cell("heap", "h", 2, std::nullopt, 0.05, std::nullopt, "between processes"),
          spread_cell("batch", "w", 5, 80, 0.03, 0.04, "between processes"),
          spread_cell("batch", "w", 0, 10, 0.9, 0.9, "between processes"),
          spread_cell("batch", "w", 4, 120, std::nullopt, 0.06, "unknown (one process)")};
}

TEST(ResultsModel, BudgetSpreadIsPerWorkloadInCellOrder) {
  const auto rows = model::workload_spreads(spread_cells());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].frame + " " + rows[0].workload, "batch w");
  EXPECT_EQ(rows[0].cells, 3u) << "the cell without a process is not counted";
  EXPECT_EQ(rows[0].processes_min, 3u);
  EXPECT_EQ(rows[0].processes_max, 5u);
  EXPECT_EQ(rows[0].samples_min, 80u);
  EXPECT_EQ(rows[0].samples_max, 120u);
  EXPECT_EQ(rows[0].between_cv_median, 0.03) << "the upper of two middle values";
  EXPECT_EQ(rows[0].within_cv_median, 0.04);
  EXPECT_EQ(rows[0].between_dominates, 1u);
  EXPECT_EQ(rows[1].frame + " " + rows[1].workload, "heap h");
  EXPECT_EQ(rows[1].samples_min, std::nullopt);
  EXPECT_EQ(rows[1].between_cv_median, 0.05);
  EXPECT_EQ(rows[1].within_cv_median, std::nullopt);
}

TEST(ResultsModel, AFileWithoutBudgetSpreadGetsItWhenRead) {
  model::budget_facts budget;
  budget.mode = "fixed";
  budget.cells = spread_cells();
  json d = report_fixture::results();
  d["budget"] = model::write_json(budget);
  ASSERT_FALSE(d["budget"].contains("spread"));
  const model::document read = model::from_json(d);
  ASSERT_TRUE((*read.budget)->spread);
  EXPECT_EQ(model::write_json(*(*read.budget)->spread),
            model::write_json(model::workload_spreads(budget.cells)));
  d["budget"]["spread"] = json::array();
  EXPECT_TRUE((*model::from_json(d).budget)->spread->empty()) << "what the file holds is kept";
}

// The simulation's pause account came after files with a simulation were written: those still
// read, and are valid against the schema.
TEST(ResultsModel, AFileWhoseSimulationHasNoPauseAccountStillReads) {
  json d = populated_document();
  ASSERT_TRUE(d.contains("simulation") && d.at("simulation").contains("pauses"));
  d["simulation"].erase("pauses");
  d["simulation"].erase("paused_seconds");
  EXPECT_NO_THROW(model::from_json(d));
  const auto problems = schema_violations(d, model::results_json_schema());
  EXPECT_TRUE(problems.empty()) << problems.front();
}

void expect_described(const json& schema, const std::string& where) {
  const json properties = schema.value("properties", json::object());
  for (const auto& [key, sub] : properties.items()) {
    EXPECT_FALSE(sub.value("description", std::string()).empty()) << where << "/" << key;
    expect_described(sub, where + "/" + key);
    if (sub.contains("items")) expect_described(sub["items"], where + "/" + key + "[]");
  }
  const json branches = schema.value("allOf", json::array());
  for (const auto& branch : branches) expect_described(branch.at("then"), where + " (a frame's)");
}

TEST(ResultsModel, EveryKeyIsDocumented) {
  expect_described(model::results_json_schema(), "");
}

}  // namespace
}  // namespace alloclab::lab
