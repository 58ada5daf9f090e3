#include "render/placement_text.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include <fmt/format.h>

#include "render/units.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// "8..24, 4088": the sorted distances, runs `step` apart joined.
std::string distance_ranges(std::vector<unsigned> slow, unsigned step) {
  std::sort(slow.begin(), slow.end());
  std::string ranges;
  for (std::size_t i = 0; i < slow.size();) {
    std::size_t j = i;
    while (j + 1 < slow.size() && slow[j + 1] == slow[j] + step) ++j;
    ranges += (ranges.empty() ? "" : ", ") +
              (i == j ? fmt::format("{}", slow[i]) : fmt::format("{}..{}", slow[i], slow[j]));
    i = j + 1;
  }
  return ranges;
}

}  // namespace

std::string cliff_description(const json& probe) {
  const json& config = probe.at("config");
  const double cliff_ratio = config.at("cliff_ratio").get<double>();
  const json& cliffs = probe.at("cliffs");
  if (cliffs.empty())
    return fmt::format(
        "no memmove cliff by placement: every distance within {:g}x of the median (worst {:.1f}x)",
        cliff_ratio, probe.at("worst_ratio").get<double>());
  // The largest size with a cliff: its worst distance (the first listed: worst first), and the
  // ranges of its slow distances.
  std::size_t bytes = 0;
  for (const json& c : cliffs) bytes = std::max(bytes, c.at("bytes").get<std::size_t>());
  std::vector<unsigned> slow;
  const json* worst = nullptr;
  for (const json& c : cliffs) {
    if (c.at("bytes").get<std::size_t>() != bytes) continue;
    slow.push_back(c.at("delta_mod4096").get<unsigned>());
    if (worst == nullptr || c.at("ratio").get<double>() > (*worst).at("ratio").get<double>())
      worst = &c;
  }
  return fmt::format(
      "memmove of {} is {:.1f}x slower when dst - src = {} (mod 4096) ({} vs {}); slow "
      "(over {:g}x) at dst - src = {} (mod 4096)",
      format_bytes(static_cast<double>(bytes)), (*worst).at("ratio").get<double>(),
      (*worst).at("delta_mod4096").get<unsigned>(),
      format_ns((*worst).at("median_ns").get<double>()), format_ns((*worst).at("ns").get<double>()),
      cliff_ratio, distance_ranges(slow, config.at("step").get<unsigned>()));
}

std::string tunable_description(const json& probe, const json& with_tunable) {
  std::string line = cliff_description(probe);
  if (!probe.at("has_cliff").get<bool>() || !with_tunable.is_object()) return line;
  const std::string tunables = with_tunable.at("glibc_tunables").get<std::string>();
  const double worst = with_tunable.at("worst_ratio").get<double>();
  if (with_tunable.at("has_cliff").get<bool>())
    return line + fmt::format("; under GLIBC_TUNABLES={} it remains ({:.1f}x)", tunables, worst);
  return line + fmt::format("; GLIBC_TUNABLES={} removes it (worst {:.1f}x)", tunables, worst);
}

std::string placement_summary(const json& placement, const json& config) {
  if (!placement.is_object() || !placement.value("probe", json()).is_object()) return "-";
  std::string summary =
      tunable_description(placement.at("probe"), placement.value("with_tunable", json()));
  const std::string check = placement.at("check");
  if (check != "auto")
    summary += fmt::format(
        "; the placement twin {} (--placement-check {})",
        config.value("placement_twin", json()).is_null() ? "was not measured" : "was measured",
        check);
  return summary;
}

}  // namespace alloclab::lab
