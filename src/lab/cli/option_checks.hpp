// What every command's options share (CLI11): validators and comma-separated lists.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace alloclab::lab {

// A finite number in [low, high]. CLI::Range alone lets NaN through (every comparison with NaN
// is false), and a NaN deadline or threshold silently turns a check off.
inline CLI::Validator finite_in_range(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return fmt::format("value {} is not a number", text);
        if (!std::isfinite(value)) return fmt::format("value {} is not a finite number", text);
        if (value < low || value > high)
          return fmt::format("value {} is not in [{} - {}]", text, low, high);
        return {};
      },
      fmt::format("FINITE in [{} - {}]", low, high));
}

// An unsigned 64-bit integer, written in decimal digits only (CLI11 would take "-1" and wrap).
inline CLI::Validator unsigned_64_bit_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc::result_out_of_range)
          return fmt::format("value {} does not fit in 64 bits", text);
        if (text.empty() || error != std::errc() || stop != end)
          return fmt::format("value {} is not an unsigned integer", text);
        return {};
      },
      "UINT64");
}

// "a,b" -> {"a", "b"}; a stray comma leaves an empty name for the plan to refuse by name.
// (CLI11's own delimiter would let an empty list swallow the next option as a value.)
inline void split_commas(std::vector<std::string>& values) {
  std::vector<std::string> names;
  for (const std::string& value : values) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = value.find(',', start);
      names.push_back(value.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  values = std::move(names);
}

}  // namespace alloclab::lab
