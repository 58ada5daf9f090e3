#include <gtest/gtest.h>

#include "results/schema_check.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

const json schema = json::parse(R"({
  "type": "object",
  "required": ["name", "cells"],
  "properties": {
    "name": {"type": "string"},
    "version": {"type": "integer", "const": 1},
    "cells": {"type": "array", "items": {
      "type": "object",
      "required": ["status", "p50"],
      "properties": {
        "status": {"type": "string", "enum": ["ok", "n/a"]},
        "p50": {"type": ["number", "null"], "minimum": 0}}}}}})");

TEST(SchemaCheck, AcceptsAConformingDocument) {
  const json doc = json::parse(R"({"name": "x", "version": 1,
        "cells": [{"status": "ok", "p50": 3.5}, {"status": "n/a", "p50": null}]})");
  EXPECT_TRUE(schema_violations(doc, schema).empty());
}

TEST(SchemaCheck, ReportsEachKindOfViolationWithItsLocation) {
  const json doc =
      json::parse(R"({"version": 2, "cells": [{"status": "maybe", "p50": -1}, {"p50": "fast"}]})");
  const auto problems = schema_violations(doc, schema);
  auto mentions = [&](const std::string& text) {
    for (const auto& p : problems)
      if (p.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(mentions("/: missing required key \"name\""));
  EXPECT_TRUE(mentions("/version: expected 1"));
  EXPECT_TRUE(mentions("/cells/0/status: \"maybe\" is not one of"));
  EXPECT_TRUE(mentions("/cells/0/p50: -1 is below the minimum"));
  EXPECT_TRUE(mentions("/cells/1: missing required key \"status\""));
  EXPECT_TRUE(mentions("/cells/1/p50: expected type"));
}

// A frame's keys are required only in that frame's workloads (allOf of if/then, model/schema.cpp).
TEST(SchemaCheck, AppliesABranchOnlyWhereItsConditionHolds) {
  const json branches = json::parse(R"({"type": "array", "items": {"type": "object", "allOf": [
      {"if": {"properties": {"frame": {"const": "heap"}}, "required": ["frame"]},
       "then": {"required": ["memory"]}}]}})");
  EXPECT_TRUE(schema_violations(
                  json::parse(R"([{"frame": "batch"}, {"frame": "heap", "memory": 1}])"), branches)
                  .empty());
  const auto problems = schema_violations(json::parse(R"([{"frame": "heap"}])"), branches);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "/0: missing required key \"memory\"");
}

// additionalProperties false (the seed claims' schema): a key the schema does not name is an
// error naming it; minItems and maxItems bound an array.
TEST(SchemaCheck, RefusesUnknownKeysAndArraysOfTheWrongLength) {
  const json closed = json::parse(R"({"type": "object", "additionalProperties": false,
      "properties": {"tolerance": {"type": "number"},
                     "claimed": {"type": "array", "minItems": 2, "maxItems": 2}}})");
  EXPECT_TRUE(
      schema_violations(json::parse(R"({"tolerance": 0.2, "claimed": [1, 2]})"), closed).empty());
  EXPECT_EQ(schema_violations(json::parse(R"({"tolerence": 0.2})"), closed),
            std::vector<std::string>{"/: unknown key \"tolerence\" (allowed: claimed, tolerance)"});
  EXPECT_EQ(schema_violations(json::parse(R"({"claimed": [1]})"), closed),
            std::vector<std::string>{"/claimed: 1 items, fewer than the minimum 2"});
  EXPECT_EQ(schema_violations(json::parse(R"({"claimed": [1, 2, 3]})"), closed),
            std::vector<std::string>{"/claimed: 3 items, more than the maximum 2"});
}

TEST(SchemaCheck, TheCompiledInResultsSchemaParses) {
  const json& s = results_schema();
  EXPECT_EQ(s.at("type"), "object");
  EXPECT_TRUE(s.at("properties").contains("workloads"));
}

}  // namespace
}  // namespace alloclab::lab
