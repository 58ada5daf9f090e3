// One table of (value, name) pairs per enum, from which its to_string, parse
// and list of values are all derived.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace alloclab::lab {

template <class Enum, std::size_t N>
using enum_names = std::array<std::pair<Enum, std::string_view>, N>;

template <class Enum, std::size_t N>
constexpr std::string_view name_in(const enum_names<Enum, N>& table, Enum value) noexcept {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <class Enum, std::size_t N>
constexpr std::optional<Enum> value_in(const enum_names<Enum, N>& table,
                                       std::string_view name) noexcept {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::vector<Enum> values_in(const enum_names<Enum, N>& table) {
  std::vector<Enum> values;
  for (const auto& entry : table) values.push_back(entry.first);
  return values;
}

}  // namespace alloclab::lab
