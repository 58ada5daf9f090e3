// Validators shared by every command's options (CLI11).
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>

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

}  // namespace alloclab::lab
