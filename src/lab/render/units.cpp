#include "render/units.hpp"

#include <fmt/format.h>

namespace alloclab::lab {

std::string format_ns(double ns) {
  if (ns < 10'000) return fmt::format("{:.0f} ns", ns);
  if (ns < 10'000'000) return fmt::format("{:.1f} µs", ns / 1e3);
  return fmt::format("{:.1f} ms", ns / 1e6);
}

std::string format_bytes(double bytes) {
  if (bytes < 10 * 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 10 * 1024 * 1024) return fmt::format("{:.0f} KiB", bytes / 1024);
  return fmt::format("{:.1f} MiB", bytes / (1024 * 1024));
}

}  // namespace alloclab::lab
