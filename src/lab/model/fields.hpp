// The one list of a results struct's fields. Every struct of the results model (model/results.hpp
// and each frame's figures in frames/<frame>/) names its fields once, in order:
//
//   struct interval {
//     double low = 0, high = 0;
//     static constexpr const char* about_type = "a 95 % bootstrap interval";
//     template <class S, class F> static void fields(S& s, F& field) {
//       field(s.low, "low", "lower end", at_least(0));
//       field(s.high, "high", "upper end", at_least(0));
//     }
//   };
//
// and that one list drives its JSON (write_json, read_json), its JSON Schema (schema_of) and its
// documentation (model/docs.hpp). After a field's meaning come its options: at_least(x),
// at_most(x), one_of{...} (the strings it may hold), may_be_absent (files written before it lack
// the key; reading leaves the member as it was). Member types: bool, integers, double,
// std::string, std::optional<T> (T or null), std::vector<T>, std::map<std::string, T> (an object
// of T), nlohmann::json (any JSON; only for what the lab does not own), and structs with fields.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "model/codecs.hpp"

namespace alloclab::lab::model {

// ---- structs with a field list ----
namespace detail {

template <class M, class = void>
struct omitted_when_empty : std::false_type {};
template <class M>
struct omitted_when_empty<M, std::enable_if_t<codec<M>::omitted_when_empty>> : std::true_type {};

struct field_writer {
  json& out;
  template <class M, class... Options>
  void operator()(const M& member, const char* name, const char*, const Options&...) {
    if constexpr (omitted_when_empty<M>::value)
      if (!member) return;
    out[name] = codec<M>::write(member);
  }
};

struct field_reader {
  const json& in;
  const std::string& where;
  template <class M, class... Options>
  void operator()(M& member, const char* name, const char*, const Options&... options) {
    const auto found = in.find(name);
    if (found == in.end()) {
      if constexpr (omitted_when_empty<M>::value) member.reset();
      if (omitted_when_empty<M>::value || options_of(options...).may_be_absent) return;
      throw model_error((where.empty() ? std::string("/") : where) + ": missing key \"" + name +
                        "\"");
    }
    codec<M>::read(*found, member, where + "/" + name);
  }
};

struct field_schema {
  json properties = json::object();
  json required = json::array();
  template <class M, class... Options>
  void operator()(const M&, const char* name, const char* meaning, const Options&... options) {
    const field_options o = options_of(options...);
    json s = codec<M>::schema();
    constrain(s, o);
    s["description"] = meaning;
    properties[name] = std::move(s);
    if (!o.may_be_absent && !omitted_when_empty<M>::value) required.push_back(name);
  }
};

struct field_docs {
  doc_sink& sink;
  const std::string& path;
  std::vector<doc_row> rows;
  template <class M, class... Options>
  void operator()(const M&, const char* name, const char* meaning, const Options&... options) {
    const field_options o = options_of(options...);
    const std::string here = path.empty() ? name : path + "." + name;
    const std::string table = codec<M>::describe(sink, here);
    std::string text = meaning;
    if (!table.empty() && table != here && table.find(here + "[]") != 0 &&
        table.find(here + ".<key>") != 0)
      text += " (as `" + table + "`)";
    if (o.may_be_absent) text += "; absent in files written before it";
    if (omitted_when_empty<M>::value) text += "; absent when there is none";
    if (!o.one_of.empty()) {
      text += "; one of";
      for (std::size_t i = 0; i < o.one_of.size(); ++i)
        text += (i == 0 ? " `" : ", `") + o.one_of[i] + "`";
    }
    rows.push_back({name, codec<M>::type_text(), std::move(text)});
  }
};

template <class T, class = void>
struct about_of {
  static std::string text() { return {}; }
};
template <class T>
struct about_of<T, std::void_t<decltype(T::about_type)>> {
  static std::string text() { return T::about_type; }
};

}  // namespace detail

// Writes T's fields into the object `out` (keys already there stay unless T names them).
template <class T>
void write_fields(const T& value, json& out) {
  detail::field_writer w{out};
  T::fields(value, w);
}
template <class T>
void read_fields(const json& in, T& value, const std::string& where) {
  if (!in.is_object()) detail::wrong_type(in, "an object", where);
  detail::field_reader r{in, where};
  T::fields(value, r);
}
// {properties, required} of T's fields.
template <class T>
detail::field_schema fields_schema() {
  const auto sample = std::make_unique<const T>();  // on the heap: GCC 12 misreads a local's
  detail::field_schema s;                           // vectors as maybe-uninitialized
  T::fields(*sample, s);
  return s;
}

// T's table at `path` (once per `type_key`; later uses point to the first), and every struct's
// inside it. Returns the path of the table.
template <class T>
std::string describe_fields(doc_sink& sink, const std::string& path, const std::string& type_key,
                            const std::string& owner = "") {
  const auto known = sink.documented.find(type_key);
  if (known != sink.documented.end()) return known->second;
  sink.documented[type_key] = path;
  const std::size_t at = sink.tables.size();
  sink.tables.push_back({path, owner, detail::about_of<T>::text(), {}});
  const auto sample = std::make_unique<const T>();
  detail::field_docs d{sink, path, {}};
  T::fields(*sample, d);
  sink.tables[at].rows = std::move(d.rows);
  return path;
}

// The JSON keys T's fields name, in order.
template <class T>
const std::vector<std::string>& field_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const json properties = fields_schema<T>().properties;
    for (const auto& [key, value] : properties.items()) out.push_back(key);
    return out;
  }();
  return names;
}

template <class T>
struct codec<T, std::enable_if_t<has_fields<T>::value>> {
  static json write(const T& v) {
    json out = json::object();
    write_fields(v, out);
    return out;
  }
  static void read(const json& j, T& v, const std::string& where) { read_fields(j, v, where); }
  static json schema() {
    const detail::field_schema f = fields_schema<T>();
    return {{"type", "object"}, {"required", f.required}, {"properties", f.properties}};
  }
  static std::string type_text() { return "object"; }
  static std::string describe(doc_sink& sink, const std::string& path) {
    return describe_fields<T>(sink, path, typeid(T).name());
  }
};

}  // namespace alloclab::lab::model
