#include "stats/ratio_text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace alloclab::lab {

int ratio_decimals(double width) {
  if (!(width > 0)) return 2;
  if (width >= 1) return -1;
  return std::clamp(static_cast<int>(-std::floor(std::log10(width))), 1, 3);
}

namespace {

std::string number(double value, int decimals) {
  return decimals < 0 ? fmt::format("{:.2g}", value) : fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

std::string ratio_with_interval(double value, std::optional<double> low, std::optional<double> high,
                                const char* sign) {
  if (!low || !high || !(*high > 0)) return fmt::format("{:.2f}{} (no interval)", value, sign);
  if (*high - *low <= 0)
    return fmt::format("{:.2f}{} (one repetition per side: no interval)", value, sign);
  const int decimals = ratio_decimals(*high - *low);
  return fmt::format("{}{} [{}–{}]", number(value, decimals), sign, number(*low, decimals),
                     number(*high, decimals));
}

}  // namespace alloclab::lab
