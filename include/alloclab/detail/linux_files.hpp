// Small readers for Linux pseudo-files (/proc, /sys, cgroup files), shared by
// memory_budget.hpp, budget_watcher.hpp and huge_page_buffer.hpp.
#pragma once

#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace alloclab::detail {

// The whole content of a small file, or nullopt when it cannot be opened.
inline std::optional<std::string> read_small_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline std::string_view trim_whitespace(std::string_view text) noexcept {
  constexpr std::string_view space = " \t\r\n";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

// A decimal number that is the whole of `text` (surrounding whitespace
// allowed); nullopt for a sign, junk, an empty string or overflow.
inline std::optional<std::uint64_t> parse_decimal(std::string_view text) noexcept {
  text = trim_whitespace(text);
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

inline bool is_directory(const std::string& path) noexcept {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

inline bool is_file(const std::string& path) noexcept {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// A file's content quoted for a message, shortened to `limit` characters.
inline std::string quoted_excerpt(std::string_view text, std::size_t limit = 40) {
  text = trim_whitespace(text);
  std::string result = "'";
  result += text.substr(0, limit);
  if (text.size() > limit) result += "...";
  return result + "'";
}

}  // namespace alloclab::detail
