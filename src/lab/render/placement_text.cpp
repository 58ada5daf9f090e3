#include "render/placement_text.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include <fmt/format.h>

#include "render/units.hpp"

namespace alloclab::lab {
namespace {

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

std::string cliff_description(const model::copy_probe& probe) {
  const double cliff_ratio = probe.config.cliff_ratio;
  if (probe.cliffs.empty())
    return fmt::format(
        "no memmove cliff by placement: every distance within {:g}x of the median (worst {:.1f}x)",
        cliff_ratio, probe.worst_ratio);
  // The largest size with a cliff: its worst distance (the first listed: worst first), and the
  // ranges of its slow distances.
  std::uint64_t bytes = 0;
  for (const model::copy_cliff& c : probe.cliffs) bytes = std::max(bytes, c.bytes);
  std::vector<unsigned> slow;
  const model::copy_cliff* worst = nullptr;
  for (const model::copy_cliff& c : probe.cliffs) {
    if (c.bytes != bytes) continue;
    slow.push_back(c.delta_mod4096);
    if (worst == nullptr || c.ratio > worst->ratio) worst = &c;
  }
  return fmt::format(
      "memmove of {} is {:.1f}x slower when dst - src = {} (mod 4096) ({} vs {}); slow "
      "(over {:g}x) at dst - src = {} (mod 4096)",
      format_bytes(static_cast<double>(bytes)), worst->ratio, worst->delta_mod4096,
      format_ns(worst->median_ns), format_ns(worst->ns), cliff_ratio,
      distance_ranges(slow, probe.config.step));
}

std::string tunable_description(const model::copy_probe& probe,
                                const std::optional<model::copy_probe>& with_tunable) {
  std::string line = cliff_description(probe);
  if (!probe.has_cliff || !with_tunable) return line;
  const std::string& tunables = with_tunable->glibc_tunables;
  const double worst = with_tunable->worst_ratio;
  if (with_tunable->has_cliff)
    return line + fmt::format("; under GLIBC_TUNABLES={} it remains ({:.1f}x)", tunables, worst);
  return line + fmt::format("; GLIBC_TUNABLES={} removes it (worst {:.1f}x)", tunables, worst);
}

std::string placement_summary(const std::optional<model::placement_facts>& placement,
                              const model::run_config& config) {
  if (!placement) return "-";
  std::string summary = tunable_description(placement->probe, placement->with_tunable);
  if (placement->check != "auto")
    summary += fmt::format(
        "; the placement twin {} (--placement-check {})",
        config.placement_twin && *config.placement_twin ? "was measured" : "was not measured",
        placement->check);
  return summary;
}

}  // namespace alloclab::lab
