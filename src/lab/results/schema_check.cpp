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

void check(const json& value, const json& schema, const json& root, const std::string& where,
           std::vector<std::string>& out) {
  const std::string here = where.empty() ? "/" : where;
  if (schema.contains("$ref")) {
    const json* target = resolve(root, schema["$ref"].get<std::string>());
    if (target == nullptr) {
      out.push_back(fmt::format("{}: the schema's {} names nothing", here, schema["$ref"].dump()));
      return;
    }
    check(value, *target, root, where, out);
  }
  for (const auto& sub : schema.value("allOf", json::array())) check(value, sub, root, where, out);
  if (schema.contains("if")) {
    std::vector<std::string> unmet;
    check(value, schema["if"], root, where, unmet);
    const char* branch = unmet.empty() ? "then" : "else";
    if (schema.contains(branch)) check(value, schema[branch], root, where, out);
  }
  if (schema.contains("type") && !matches_type(value, schema["type"])) {
    out.push_back(fmt::format("{}: expected type {}, found {}", here, schema["type"].dump(),
                              value.type_name()));
    return;
  }
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
  if (value.is_object()) {
    for (const auto& key : schema.value("required", json::array()))
      if (!value.contains(key.get<std::string>()))
        out.push_back(fmt::format("{}: missing required key \"{}\"", here, key.get<std::string>()));
    const json properties = schema.value("properties", json::object());
    for (const auto& [key, sub] : properties.items())
      if (value.contains(key)) check(value[key], sub, root, where + "/" + key, out);
    if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object())
      for (const auto& [key, sub] : value.items())
        if (!properties.contains(key))
          check(sub, schema["additionalProperties"], root, where + "/" + key, out);
  }
  if (value.is_array() && schema.contains("items"))
    for (std::size_t i = 0; i < value.size(); ++i)
      check(value[i], schema["items"], root, fmt::format("{}/{}", where, i), out);
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
