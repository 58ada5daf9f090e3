// The JSON, schema and docs of each type a results field may have (scalars, std::optional,
// std::vector, std::map, omittable), and the field options. model/fields.hpp adds the structs
// that name their fields; include that one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace alloclab::lab::model {

using json = nlohmann::json;

// A results document that does not have the model's shape: "where: what".
class model_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- field options ----
struct lower_bound {
  double value;
};
struct upper_bound {
  double value;
};
inline lower_bound at_least(double value) {
  return {value};
}
inline upper_bound at_most(double value) {
  return {value};
}
struct one_of {
  std::vector<std::string> values;
  one_of(std::initializer_list<const char*> words) : values(words.begin(), words.end()) {}
};
struct may_be_absent_t {};
inline constexpr may_be_absent_t may_be_absent{};

struct field_options {
  std::optional<double> minimum, maximum;
  std::vector<std::string> one_of;
  bool may_be_absent = false;
};
inline void add_option(field_options& o, const lower_bound& a) {
  o.minimum = a.value;
}
inline void add_option(field_options& o, const upper_bound& a) {
  o.maximum = a.value;
}
inline void add_option(field_options& o, const one_of& e) {
  o.one_of = e.values;
}
inline void add_option(field_options& o, may_be_absent_t) {
  o.may_be_absent = true;
}
template <class... Options>
field_options options_of(const Options&... options) {
  field_options o;
  (add_option(o, options), ...);
  return o;
}

// ---- the documentation a field list produces: one table per struct type ----
struct doc_row {
  std::string key, type, meaning;
};
struct doc_table {
  std::string path;   // where in results.json, e.g. "workloads[].cells[].timing"
  std::string owner;  // the frame whose keys these are; "" for keys every frame shares
  std::string about;  // the struct's `about`, if it has one
  std::vector<doc_row> rows;
};
struct doc_sink {
  std::vector<doc_table> tables;
  std::map<std::string, std::string> documented;  // type name -> path of its table
};

// ---- what a type looks like in JSON, in the schema and in the docs ----
template <class T, class = void>
struct codec;  // defined below for every type a field may have

// Accepts any field: used to detect a struct's `fields` list.
struct any_field {
  template <class M, class... Options>
  void operator()(M&, const char*, const char*, const Options&...) {}
};
template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T,
                  std::void_t<decltype(T::fields(std::declval<T&>(), std::declval<any_field&>()))>>
    : std::true_type {};

template <class T>
json write_json(const T& value) {
  return codec<T>::write(value);
}
template <class T>
T read_json(const json& j, const std::string& where = "") {
  T value{};
  codec<T>::read(j, value, where);
  return value;
}
template <class T>
json schema_of() {
  return codec<T>::schema();
}
// Adds the tables of T (and of the structs inside it) at `path`; returns the path of T's table,
// "" for a type without one.
template <class T>
std::string describe(doc_sink& sink, const std::string& path) {
  return codec<T>::describe(sink, path);
}

namespace detail {

[[noreturn]] inline void wrong_type(const json& j, const char* expected, const std::string& where) {
  throw model_error((where.empty() ? std::string("/") : where) + ": expected " + expected +
                    ", found " + j.type_name());
}

// Constraints go on the innermost value: an array's items, an object's values.
inline void constrain(json& schema, const field_options& o) {
  const json& type = schema.value("type", json());
  const auto is = [&type](const char* t) {
    return type == t || (type.is_array() && std::find(type.begin(), type.end(), t) != type.end());
  };
  if (is("array") && schema.contains("items")) return constrain(schema["items"], o);
  if (is("object") && schema.contains("additionalProperties"))
    return constrain(schema["additionalProperties"], o);
  if (o.minimum) schema["minimum"] = *o.minimum;
  if (o.maximum) schema["maximum"] = *o.maximum;
  if (!o.one_of.empty()) {
    schema["enum"] = o.one_of;
    if (is("null")) schema["enum"].push_back(nullptr);
  }
}

// The schema of T or null.
inline json nullable(json schema) {
  if (!schema.contains("type")) return schema;  // any JSON already admits null
  json& type = schema["type"];
  if (type.is_string()) type = json::array({type, "null"});
  return schema;
}

}  // namespace detail

// ---- scalars ----
template <>
struct codec<bool> {
  static json write(bool v) { return v; }
  static void read(const json& j, bool& v, const std::string& where) {
    if (!j.is_boolean()) detail::wrong_type(j, "a boolean", where);
    v = j.get<bool>();
  }
  static json schema() { return {{"type", "boolean"}}; }
  static std::string type_text() { return "boolean"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

template <class T>
struct codec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static json write(T v) { return v; }
  static void read(const json& j, T& v, const std::string& where) {
    if (!j.is_number_integer()) detail::wrong_type(j, "an integer", where);
    v = j.get<T>();
  }
  static json schema() {
    json s = {{"type", "integer"}};
    if (std::is_unsigned_v<T>) s["minimum"] = 0;
    return s;
  }
  static std::string type_text() { return "integer"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

template <>
struct codec<double> {
  static json write(double v) { return v; }
  static void read(const json& j, double& v, const std::string& where) {
    if (!j.is_number()) detail::wrong_type(j, "a number", where);
    v = j.get<double>();
  }
  static json schema() { return {{"type", "number"}}; }
  static std::string type_text() { return "number"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

template <>
struct codec<std::string> {
  static json write(const std::string& v) { return v; }
  static void read(const json& j, std::string& v, const std::string& where) {
    if (!j.is_string()) detail::wrong_type(j, "a string", where);
    v = j.get<std::string>();
  }
  static json schema() { return {{"type", "string"}}; }
  static std::string type_text() { return "string"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

// Any JSON: for what the lab does not own (e.g. a command line as another tool printed it).
template <>
struct codec<json> {
  static json write(const json& v) { return v; }
  static void read(const json& j, json& v, const std::string&) { v = j; }
  static json schema() { return json::object(); }
  static std::string type_text() { return "any JSON"; }
  static std::string describe(doc_sink&, const std::string&) { return {}; }
};

// ---- containers ----
template <class T>
struct codec<std::optional<T>> {
  static json write(const std::optional<T>& v) { return v ? codec<T>::write(*v) : json(nullptr); }
  static void read(const json& j, std::optional<T>& v, const std::string& where) {
    if (j.is_null()) {
      v.reset();
      return;
    }
    v.emplace();
    codec<T>::read(j, *v, where);
  }
  static json schema() { return detail::nullable(codec<T>::schema()); }
  static std::string type_text() { return codec<T>::type_text() + " or null"; }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return codec<T>::describe(sink, path);
  }
};

template <class T>
struct codec<std::vector<T>> {
  static json write(const std::vector<T>& v) {
    json out = json::array();
    for (const T& item : v) out.push_back(codec<T>::write(item));
    return out;
  }
  static void read(const json& j, std::vector<T>& v, const std::string& where) {
    if (!j.is_array()) detail::wrong_type(j, "an array", where);
    v.clear();
    v.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
      T item{};
      codec<T>::read(j[i], item, where + "/" + std::to_string(i));
      v.push_back(std::move(item));
    }
  }
  static json schema() { return {{"type", "array"}, {"items", codec<T>::schema()}}; }
  static std::string type_text() { return "array of " + codec<T>::type_text(); }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return codec<T>::describe(sink, path + "[]");
  }
};

template <class T>
struct codec<std::map<std::string, T>> {
  static json write(const std::map<std::string, T>& v) {
    json out = json::object();
    for (const auto& [key, item] : v) out[key] = codec<T>::write(item);
    return out;
  }
  static void read(const json& j, std::map<std::string, T>& v, const std::string& where) {
    if (!j.is_object()) detail::wrong_type(j, "an object", where);
    v.clear();
    for (const auto& [key, item] : j.items()) codec<T>::read(item, v[key], where + "/" + key);
  }
  static json schema() {
    return {{"type", "object"}, {"additionalProperties", codec<T>::schema()}};
  }
  static std::string type_text() { return "object of " + codec<T>::type_text(); }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return codec<T>::describe(sink, path + ".<key>");
  }
};

// A value written only when it has one: the key is absent otherwise (std::optional writes null).
template <class T>
struct omittable : std::optional<T> {
  using std::optional<T>::optional;
  using std::optional<T>::operator=;
};

template <class T>
struct codec<omittable<T>> {
  static constexpr bool omitted_when_empty = true;
  static json write(const omittable<T>& v) { return codec<T>::write(*v); }
  static void read(const json& j, omittable<T>& v, const std::string& where) {
    v.emplace();
    codec<T>::read(j, *v, where);
  }
  static json schema() { return codec<T>::schema(); }
  static std::string type_text() { return codec<T>::type_text(); }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return codec<T>::describe(sink, path);
  }
};

}  // namespace alloclab::lab::model
