#include "mallocs/knobs.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "mallocs/malloc_table.hpp"

namespace alloclab::mallocs {
namespace {

// The knobs of `malloc` (a table name); nullptr for a malloc without knobs, or no malloc.
const malloc_knobs* knobs_of_entry(std::string_view malloc) {
  const malloc_entry* e = find_malloc(malloc);
  return e == nullptr || e->knobs.specs.empty() ? nullptr : &e->knobs;
}

const knob_spec* find_knob(std::string_view malloc, std::string_view name) {
  if (const malloc_knobs* knobs = knobs_of_entry(malloc))
    for (const knob_spec& k : knobs->specs)
      if (k.name == name) return &k;
  return nullptr;
}

std::string knob_names(std::string_view malloc) {
  std::string names;
  if (const malloc_knobs* knobs = knobs_of_entry(malloc))
    for (const knob_spec& k : knobs->specs) {
      if (!names.empty()) names += ", ";
      names += k.name;
    }
  return names;
}

template <class T>
bool parse_number(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && ptr == end && !text.empty();
}

bool parse_rate(std::string_view text, double& value) {
  const std::string s(text);
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(value) && value >= 0;
}

// "" when `value` is acceptable for `kind`, else what was expected.
std::string value_problem(knob_value kind, std::string_view value) {
  std::uint64_t count = 0;
  std::int64_t signed_value = 0;
  double rate = 0;
  switch (kind) {
    case knob_value::count_from_1:
      return parse_number(value, count) && count >= 1 ? "" : "an integer >= 1";
    case knob_value::count:
      return parse_number(value, count) ? "" : "an integer >= 0";
    case knob_value::int_count:
      return parse_number(value, count) && count <= 2147483647u ? ""
                                                                : "an integer from 0 to 2147483647";
    case knob_value::decay_ms:
      return parse_number(value, signed_value) && signed_value >= -1 ? "" : "an integer >= -1";
    case knob_value::boolean:
      return value == "true" || value == "false" ? "" : "true or false";
    case knob_value::eager_commit:
      return value == "0" || value == "1" || value == "2" ? "" : "0, 1 or 2";
    case knob_value::rate:
      return parse_rate(value, rate) ? "" : "a number >= 0";
  }
  return "a value";
}

knob_setting parse_setting(std::string_view malloc, std::string_view text, std::string_view whole) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0 || equals + 1 == text.size())
    throw variant_error("--variants: '" + std::string(whole) + "': '" + std::string(text) +
                        "' is not KNOB=VALUE");
  const std::string_view name = text.substr(0, equals);
  const std::string_view value = text.substr(equals + 1);
  const knob_spec* spec = find_knob(malloc, name);
  if (spec == nullptr)
    throw variant_error("--variants: " + std::string(malloc) + " has no knob '" +
                        std::string(name) + "'; its knobs: " + knob_names(malloc));
  if (std::string expected = value_problem(spec->kind, value); !expected.empty())
    throw variant_error("--variants: " + std::string(malloc) + " " + std::string(name) + "=" +
                        std::string(value) + ": expected " + expected);
  return {std::string(name), std::string(value)};
}

variant parse_one(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size())
    throw variant_error("--variants: '" + std::string(text) +
                        "' is not MALLOC:KNOB=VALUE[+KNOB=VALUE...]");
  variant v;
  v.malloc = std::string(text.substr(0, colon));
  if (knobs_of_entry(v.malloc) == nullptr)
    throw variant_error("--variants: '" + v.malloc + "' has no knobs here; " + knob_summary());
  std::string_view rest = text.substr(colon + 1);
  for (;;) {
    const std::size_t plus = rest.find('+');
    knob_setting s = parse_setting(v.malloc, rest.substr(0, plus), text);
    const bool repeated = std::any_of(v.settings.begin(), v.settings.end(),
                                      [&s](const knob_setting& o) { return o.knob == s.knob; });
    if (repeated)
      throw variant_error("--variants: '" + std::string(text) + "' sets " + s.knob + " twice");
    v.settings.push_back(std::move(s));
    if (plus == std::string_view::npos) break;
    rest.remove_prefix(plus + 1);
  }
  return v;
}

}  // namespace

std::string variant::label() const {
  std::string text = malloc;
  for (const knob_setting& s : settings) text += " " + s.knob + "=" + s.value;
  return text;
}

std::vector<variant> parse_variants(std::string_view text) {
  if (text.empty()) throw variant_error("--variants: empty; " + knob_summary());
  std::vector<variant> out;
  for (;;) {
    const std::size_t comma = text.find(',');
    variant v = parse_one(text.substr(0, comma));
    const std::string label = v.label();
    if (std::any_of(out.begin(), out.end(),
                    [&label](const variant& o) { return o.label() == label; }))
      throw variant_error("--variants: '" + label + "' is given twice");
    out.push_back(std::move(v));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

environment knob_environment(const variant& v) {
  environment env;
  const malloc_knobs* knobs = knobs_of_entry(v.malloc);
  if (knobs == nullptr || v.settings.empty()) return env;
  std::string joined;
  for (const knob_setting& s : v.settings) {
    const knob_spec* spec = find_knob(v.malloc, s.knob);
    if (spec == nullptr) continue;
    switch (knobs->style) {
      case knob_style::glibc_tunables:
        joined +=
            (joined.empty() ? "" : ":") + std::string("glibc.malloc.") + s.knob + "=" + s.value;
        break;
      case knob_style::malloc_conf:
        joined += (joined.empty() ? "" : ",") + s.knob + ":" + s.value;
        break;
      case knob_style::one_variable_each:
        for (std::string_view name : spec->variables) env.emplace_back(std::string(name), s.value);
        break;
    }
  }
  if (knobs->style == knob_style::glibc_tunables) env.emplace_back("GLIBC_TUNABLES", joined);
  if (knobs->style == knob_style::malloc_conf) env.emplace_back("MALLOC_CONF", joined);
  return env;
}

std::vector<std::string> knob_variables() {
  std::vector<std::string> names{"GLIBC_TUNABLES", "MALLOC_CONF"};
  for (const malloc_entry& e : malloc_registry())
    for (const knob_spec& k : e.knobs.specs)
      for (std::string_view name : k.variables) names.emplace_back(name);
  return names;
}

std::vector<std::string> knobs_of(std::string_view malloc) {
  std::vector<std::string> names;
  if (const malloc_knobs* knobs = knobs_of_entry(malloc))
    for (const knob_spec& k : knobs->specs) names.emplace_back(k.name);
  return names;
}

bool same_knob_value(std::string_view malloc, std::string_view knob, std::string_view set,
                     std::string_view read) {
  const knob_spec* spec = find_knob(malloc, knob);
  if (spec == nullptr) return set == read;
  double a = 0, b = 0;
  std::int64_t x = 0, y = 0;
  switch (spec->kind) {
    case knob_value::boolean:
      return (set == "true" || set == "1") == (read == "true" || read == "1");
    case knob_value::rate:
      return parse_rate(set, a) && parse_rate(read, b) &&
             std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a));
    default:
      return parse_number(set, x) && parse_number(read, y) && x == y;
  }
}

std::string knob_not_applied(const variant& v, const std::vector<knob_reading>& readings) {
  for (const knob_setting& s : v.settings)
    for (const knob_reading& r : readings) {
      if (r.knob != s.knob || !r.value || same_knob_value(v.malloc, s.knob, s.value, *r.value))
        continue;
      return "knob " + s.knob + " not applied: set " + s.value + ", " + v.malloc + " uses " +
             *r.value + " (read back with " + r.how + ")";
    }
  return {};
}

std::string knob_summary() {
  std::string text = "knobs:";
  for (const malloc_entry& e : malloc_registry())
    if (!e.knobs.specs.empty())
      text += std::string(text.back() == ':' ? " " : "; ") + std::string(e.name) + ": " +
              knob_names(e.name);
  return text;
}

}  // namespace alloclab::mallocs
