#include "model/schema.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

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
  for (const auto& row : frame_codec_table())
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

// `branch`'s `if` holds for `object`: each of its properties has its `const` value.
bool branch_holds(const json& branch, const json& object) {
  for (const auto& [key, condition] : branch.at("if").at("properties").items())
    if (!object.contains(key) || object.at(key) != condition.at("const")) return false;
  return true;
}

// A schema that admits any JSON below it (a field of type nlohmann::json).
bool admits_anything(const json& schema) {
  return !schema.contains("properties") && !schema.contains("additionalProperties") &&
         !schema.contains("items") && !schema.contains("allOf");
}

using schemas = std::vector<const json*>;

// The schemas of `value`'s key or items (`key` empty: items) under each of `of`.
schemas below(const schemas& of, const std::string& key) {
  schemas out;
  for (const json* s : of) {
    if (key.empty()) {
      if (s->contains("items")) out.push_back(&s->at("items"));
    } else if (s->contains("properties") && s->at("properties").contains(key)) {
      out.push_back(&s->at("properties").at(key));
    } else if (s->contains("additionalProperties")) {
      out.push_back(&s->at("additionalProperties"));
    }
  }
  return out;
}

// Whether `where` is a cell of a `cells` array ("/workloads/0/cells/3", "/serve/.../cells/0").
bool is_cell(const std::string& where) {
  const std::size_t slash = where.rfind('/');
  const std::string tail = "/cells";
  return slash != std::string::npos && slash + 1 < where.size() &&
         where.find_first_not_of("0123456789", slash + 1) == std::string::npos &&
         slash >= tail.size() && where.compare(slash - tail.size(), tail.size(), tail) == 0;
}

struct walk {
  schemas lab_cell;  // every frame's keys of a lab cell: version 6 wrote them all into every cell
  std::vector<std::string>& out;
};

// Adds to `out` the keys of `value` that none of `own` (the schemas that apply to it) names and
// that are not null keys of another frame (`others`: the parts of frames `value` is not of; in a
// cell, also any lab cell's).
void collect_undescribed(const json& value, const schemas& own, const schemas& others,
                         const std::string& where, walk& w) {
  if (std::any_of(own.begin(), own.end(), [](const json* s) { return admits_anything(*s); }))
    return;
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      collect_undescribed(value[i], below(own, ""), below(others, ""),
                          where + "/" + std::to_string(i), w);
    return;
  }
  if (!value.is_object()) return;
  schemas applying, not_applying = others;
  for (const json* s : own) {
    applying.push_back(s);
    if (s->contains("allOf"))
      for (const json& branch : s->at("allOf"))
        (branch_holds(branch, value) ? applying : not_applying).push_back(&branch.at("then"));
  }
  if (is_cell(where)) not_applying.insert(not_applying.end(), w.lab_cell.begin(), w.lab_cell.end());
  for (const auto& [key, item] : value.items()) {
    const schemas mine = below(applying, key), theirs = below(not_applying, key);
    if (!mine.empty())
      collect_undescribed(item, mine, theirs, where + "/" + key, w);
    else if (!(item.is_null() && !theirs.empty()))
      w.out.push_back(where + "/" + key);
  }
}

}  // namespace

std::vector<std::string> undescribed_keys(const json& document) {
  const json schema = results_json_schema();
  std::vector<std::string> out;
  walk w{{}, out};
  const json& workload = schema.at("properties").at("workloads").at("items");
  w.lab_cell.push_back(&workload.at("properties").at("cells").at("items"));
  for (const json& branch : workload.at("allOf"))
    if (branch.at("then").at("properties").contains("cells"))
      w.lab_cell.push_back(&branch.at("then").at("properties").at("cells").at("items"));
  collect_undescribed(document, {&schema}, {}, "", w);
  return out;
}

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
  for (const auto& row : frame_codec_table()) {
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
  for (const auto& row : frame_codec_table()) {
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
  for (const auto& row : frame_codec_table())
    if (const part_codec* codec = row.results_parts.config) codec->describe(sink, path, row.name);
  return path;
}

json results_json_schema() {
  json s = object_schema(fields_schema<document>());
  add_parts(s, &frame_results_parts::document);
  s["$comment"] = fmt::format(
      "alloclab results.json, schema_version {} to {} (`alloclab run` writes {}, the results "
      "model {}): generated from the results model (src/lab/model, `alloclab schema`); "
      "documented in docs/results-schema.md. A JSON Schema subset checked by the lab's own "
      "validator (alloclab validate), which accepts the same versions.",
      oldest_readable_version, schema_version, oldest_readable_version, schema_version);
  return s;
}

std::string results_field_tables() {
  doc_sink sink;
  describe_fields<document>(sink, "", "document");
  for (const auto& row : frame_codec_table())
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
