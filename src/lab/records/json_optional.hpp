// std::optional<T> as JSON for nlohmann (3.11.2 has no built-in support): null when empty, T's
// own JSON otherwise. Lets a struct with optional members use NLOHMANN_DEFINE_TYPE_*.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace nlohmann {

template <class T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    j = value ? json(*value) : json(nullptr);
  }
  static void from_json(const json& j, std::optional<T>& value) {
    value = j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
  }
};

}  // namespace nlohmann
