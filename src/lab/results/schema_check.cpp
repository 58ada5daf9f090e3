#include "schema_check.hpp"

#include <fmt/format.h>

#include "model/schema.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

bool has_type(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  return false;
}

bool matches_type(const json& value, const json& type) {
  if (type.is_string()) return has_type(value, type.get<std::string>());
  for (const auto& t : type)
    if (has_type(value, t.get<std::string>())) return true;
  return false;
}

// "#/$defs/interval" -> the schema it names in `root`, or null when it names nothing.
const json* resolve(const json& root, const std::string& ref) {
  if (ref.rfind("#/", 0) != 0) return nullptr;
  const json::json_pointer pointer(ref.substr(1));
  return root.contains(pointer) ? &root[pointer] : nullptr;
}

// "a, b, c": the keys of a schema's properties.
std::string key_list(const json& properties) {
  std::string keys;
  for (const auto& [key, sub] : properties.items()) keys += (keys.empty() ? "" : ", ") + key;
  return keys;
}

void check(const json& value, const json& schema, const json& root, const std::string& where,
           std::vector<std::string>& out);

// $ref, allOf and if/then/else: the schemas `value` must also meet.
void check_applicators(const json& value, const json& schema, const json& root,
                       const std::string& where, std::vector<std::string>& out) {
  if (schema.contains("$ref")) {
    const json* target = resolve(root, schema["$ref"].get<std::string>());
    if (target == nullptr)
      out.push_back(fmt::format("{}: the schema's {} names nothing", where.empty() ? "/" : where,
                                schema["$ref"].dump()));
    else
      check(value, *target, root, where, out);
  }
  for (const auto& sub : schema.value("allOf", json::array())) check(value, sub, root, where, out);
  if (schema.contains("if")) {
    std::vector<std::string> unmet;
    check(value, schema["if"], root, where, unmet);
    const char* branch = unmet.empty() ? "then" : "else";
    if (schema.contains(branch)) check(value, schema[branch], root, where, out);
  }
}

// const, enum, minimum and maximum.
void check_value(const json& value, const json& schema, const std::string& here,
                 std::vector<std::string>& out) {
  if (schema.contains("const") && value != schema["const"])
    out.push_back(
        fmt::format("{}: expected {}, found {}", here, schema["const"].dump(), value.dump()));
  if (schema.contains("enum")) {
    bool listed = false;
    for (const auto& option : schema["enum"]) listed = listed || option == value;
    if (!listed)
      out.push_back(
          fmt::format("{}: {} is not one of {}", here, value.dump(), schema["enum"].dump()));
  }
  if (schema.contains("minimum") && value.is_number() &&
      value.get<double>() < schema["minimum"].get<double>())
    out.push_back(fmt::format("{}: {} is below the minimum {}", here, value.dump(),
                              schema["minimum"].dump()));
  if (schema.contains("maximum") && value.is_number() &&
      value.get<double>() > schema["maximum"].get<double>())
    out.push_back(fmt::format("{}: {} is above the maximum {}", here, value.dump(),
                              schema["maximum"].dump()));
}

// required, properties and additionalProperties (a schema, or false: no other key allowed).
void check_object(const json& value, const json& schema, const json& root, const std::string& where,
                  std::vector<std::string>& out) {
  const std::string here = where.empty() ? "/" : where;
  for (const auto& key : schema.value("required", json::array()))
    if (!value.contains(key.get<std::string>()))
      out.push_back(fmt::format("{}: missing required key \"{}\"", here, key.get<std::string>()));
  const json properties = schema.value("properties", json::object());
  for (const auto& [key, sub] : properties.items())
    if (value.contains(key)) check(value[key], sub, root, where + "/" + key, out);
  const json others = schema.value("additionalProperties", json());
  for (const auto& [key, sub] : value.items()) {
    if (properties.contains(key)) continue;
    if (others.is_object()) check(sub, others, root, where + "/" + key, out);
    if (others == false)
      out.push_back(
          fmt::format("{}: unknown key \"{}\" (allowed: {})", here, key, key_list(properties)));
  }
}

// items, minItems and maxItems.
void check_array(const json& value, const json& schema, const json& root, const std::string& where,
                 std::vector<std::string>& out) {
  const std::string here = where.empty() ? "/" : where;
  if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>())
    out.push_back(fmt::format("{}: {} items, fewer than the minimum {}", here, value.size(),
                              schema["minItems"].dump()));
  if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<std::size_t>())
    out.push_back(fmt::format("{}: {} items, more than the maximum {}", here, value.size(),
                              schema["maxItems"].dump()));
  if (schema.contains("items"))
    for (std::size_t i = 0; i < value.size(); ++i)
      check(value[i], schema["items"], root, fmt::format("{}/{}", where, i), out);
}

void check(const json& value, const json& schema, const json& root, const std::string& where,
           std::vector<std::string>& out) {
  const std::string here = where.empty() ? "/" : where;
  check_applicators(value, schema, root, where, out);
  if (schema.contains("type") && !matches_type(value, schema["type"])) {
    out.push_back(fmt::format("{}: expected type {}, found {}", here, schema["type"].dump(),
                              value.type_name()));
    return;
  }
  check_value(value, schema, here, out);
  if (value.is_object()) check_object(value, schema, root, where, out);
  if (value.is_array()) check_array(value, schema, root, where, out);
}

}  // namespace

std::vector<std::string> schema_violations(const json& document, const json& schema) {
  std::vector<std::string> out;
  check(document, schema, schema, "", out);
  return out;
}

const json& results_schema() {
  static const json schema = model::results_json_schema();
  return schema;
}

}  // namespace alloclab::lab
