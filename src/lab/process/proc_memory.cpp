#include "process/proc_memory.hpp"

#include <sys/resource.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace alloclab::process {

namespace {

// "   1234 kB" -> 1234 * 1024
std::optional<std::uint64_t> parse_kb_value(std::string_view v) {
  std::size_t i = 0;
  while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
  std::uint64_t n = 0;
  const char* first = v.data() + i;
  const char* last = v.data() + v.size();
  auto [ptr, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || ptr == first) return std::nullopt;
  std::string_view unit(ptr, static_cast<std::size_t>(last - ptr));
  while (!unit.empty() && (unit.front() == ' ' || unit.front() == '\t')) unit.remove_prefix(1);
  while (!unit.empty() && (unit.back() == ' ' || unit.back() == '\t' || unit.back() == '\r')) {
    unit.remove_suffix(1);
  }
  if (unit == "kB") return n * 1024u;
  if (unit.empty()) return n;
  return std::nullopt;
}

}  // namespace

proc_status parse_proc_status(std::string_view text) {
  proc_status out;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = (eol == std::string_view::npos) ? std::string_view{} : text.substr(eol + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = line.substr(colon + 1);
    if (key == "VmRSS") {
      out.vm_rss_bytes = parse_kb_value(value);
    } else if (key == "VmHWM") {
      out.vm_hwm_bytes = parse_kb_value(value);
    }
  }
  return out;
}

proc_status read_proc_status() {
  std::ifstream in("/proc/self/status");
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_proc_status(ss.str());
}

fault_counts read_faults() noexcept {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return {};
  return {static_cast<std::uint64_t>(ru.ru_minflt), static_cast<std::uint64_t>(ru.ru_majflt)};
}

bool reset_peak_rss() noexcept {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

double fragmentation(std::uint64_t peak_rss_bytes, std::uint64_t peak_live_bytes,
                     std::uint64_t baseline_rss_bytes) noexcept {
  if (peak_live_bytes == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::uint64_t heap =
      peak_rss_bytes > baseline_rss_bytes ? peak_rss_bytes - baseline_rss_bytes : 0;
  return static_cast<double>(heap) / static_cast<double>(peak_live_bytes);
}

}  // namespace alloclab::process
