#include "model/schema.hpp"

#include <cctype>

#include <fmt/format.h>

#include "frames/frame_table.hpp"
#include "model/document.hpp"

namespace alloclab::lab::model {
namespace {

json object_schema(const detail::field_schema& f) {
  return {{"type", "object"}, {"required", f.required}, {"properties", f.properties}};
}

// {properties, required} of one frame's part.
json part_schema(const part_codec& codec) {
  json s = {{"properties", json::object()}, {"required", json::array()}};
  codec.schema(s["properties"], s["required"]);
  return s;
}

// Adds every frame's part at `place` to `schema`'s properties: not required, and null allowed (a
// frame's keys are there only when it ran; version 6 files wrote them as null otherwise).
void add_parts(json& schema, const part_codec* frame_results_parts::*place) {
  for (const auto& row : frame_table())
    if (const part_codec* codec = row.results_parts.*place) {
      json properties = json::object(), ignored_required = json::array();
      codec->schema(properties, ignored_required);
      for (auto& [key, value] : properties.items())
        schema["properties"][key] = detail::nullable(value);
    }
}

std::string escaped(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
    text.replace(at, 1, "\\|");
  return text;
}

}  // namespace

json codec<cell>::schema() {
  return object_schema(fields_schema<cell>());
}

std::string codec<cell>::describe(doc_sink& sink, const std::string& path) {
  return describe_fields<cell>(sink, path, "cell");
}

// The common keys, and per frame (if `frame` is its name) its workload's and its cells' keys.
json codec<workload>::schema() {
  json s = object_schema(fields_schema<workload>());
  json frames = json::array(), branches = json::array();
  for (const auto& row : frame_table()) {
    const frame_results_parts& parts = row.results_parts;
    if (parts.workload == nullptr && parts.cell == nullptr) continue;
    frames.push_back(row.name);
    json then = {{"properties", json::object()}, {"required", json::array()}};
    if (parts.workload != nullptr) then = part_schema(*parts.workload);
    if (parts.cell != nullptr)
      then["properties"]["cells"] = {
          {"description", fmt::format("the keys of the {} frame's cells", row.name)},
          {"items", part_schema(*parts.cell)}};
    branches.push_back(
        {{"if", {{"properties", {{"frame", {{"const", row.name}}}}}, {"required", {"frame"}}}},
         {"then", std::move(then)}});
  }
  s["properties"]["frame"]["enum"] = frames;
  s["allOf"] = branches;
  return s;
}

std::string codec<workload>::describe(doc_sink& sink, const std::string& path) {
  describe_fields<workload>(sink, path, "workload");
  for (const auto& row : frame_table()) {
    if (const part_codec* codec = row.results_parts.workload) codec->describe(sink, path, row.name);
    if (const part_codec* codec = row.results_parts.cell)
      codec->describe(sink, path + ".cells[]", row.name);
  }
  return path;
}

json codec<run_config>::schema() {
  json s = object_schema(fields_schema<run_config>());
  add_parts(s, &frame_results_parts::config);
  return s;
}

std::string codec<run_config>::describe(doc_sink& sink, const std::string& path) {
  describe_fields<run_config>(sink, path, "run_config");
  for (const auto& row : frame_table())
    if (const part_codec* codec = row.results_parts.config) codec->describe(sink, path, row.name);
  return path;
}

json results_json_schema() {
  json s = object_schema(fields_schema<document>());
  add_parts(s, &frame_results_parts::document);
  s["$comment"] = fmt::format(
      "alloclab results.json, schema_version {}: generated from the results model "
      "(src/lab/model, `alloclab schema`); documented in docs/results-schema.md. A JSON Schema "
      "subset checked by the lab's own validator (alloclab validate).",
      schema_version);
  return s;
}

std::string results_field_tables() {
  doc_sink sink;
  describe_fields<document>(sink, "", "document");
  for (const auto& row : frame_table())
    if (const part_codec* codec = row.results_parts.document) codec->describe(sink, "", row.name);
  std::string md;
  for (const doc_table& t : sink.tables) {
    md += t.path.empty() ? std::string("### Top level") : fmt::format("### `{}`", t.path);
    md += t.owner.empty() ? "\n\n" : fmt::format(" ({} frame)\n\n", t.owner);
    if (!t.about.empty())
      md += static_cast<char>(std::toupper(static_cast<unsigned char>(t.about[0]))) +
            t.about.substr(1) + ".\n\n";
    md += "| key | type | meaning |\n|---|---|---|\n";
    for (const doc_row& r : t.rows)
      md += fmt::format("| `{}` | {} | {} |\n", r.key, escaped(r.type), escaped(r.meaning));
    md += "\n";
  }
  return md;
}

}  // namespace alloclab::lab::model
