#include "simulate/left_out.hpp"

#include <cctype>
#include <sstream>
#include <stdexcept>

#include "simulate/region.hpp"

namespace alloclab::lab::simulate {
namespace {

// The syscall a strace line starts (after an optional "PID " prefix), or "" for a line that
// resumes or reports something else ("<... mmap resumed>", "+++ exited", "--- SIG").
std::string syscall_of(const std::string& line) {
  std::size_t at = 0;
  while (at < line.size() && (std::isdigit(static_cast<unsigned char>(line[at])) != 0)) ++at;
  while (at < line.size() && line[at] == ' ') ++at;
  const std::size_t paren = line.find('(', at);
  if (paren == std::string::npos) return {};
  const std::string name = line.substr(at, paren - at);
  for (const char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return {};
  return name;
}

}  // namespace

const std::vector<std::string>& counted_syscalls() {
  static const std::vector<std::string> names = {"mmap", "munmap", "mremap", "madvise", "brk"};
  return names;
}

std::string strace_filter() {
  std::string filter;
  for (const std::string& name : counted_syscalls()) filter += name + ",";
  return filter + "write";
}

std::map<std::string, std::int64_t> syscalls_in_region(std::string_view strace_output,
                                                       const std::string& region) {
  const std::string begin = region_marker(region, true), end = region_marker(region, false);
  std::map<std::string, std::int64_t> counts;
  for (const std::string& name : counted_syscalls()) counts[name] = 0;
  bool inside = false, seen_begin = false, seen_end = false;
  std::istringstream in{std::string(strace_output)};
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"" + begin + "\"") != std::string::npos) {
      inside = seen_begin = true;
      continue;
    }
    if (line.find("\"" + end + "\"") != std::string::npos) {
      inside = false;
      seen_end = true;
      continue;
    }
    if (!inside) continue;
    const auto found = counts.find(syscall_of(line));
    if (found != counts.end()) ++found->second;
  }
  if (!seen_begin || !seen_end)
    throw std::runtime_error("strace output lacks the markers of region " + region);
  return counts;
}

}  // namespace alloclab::lab::simulate
