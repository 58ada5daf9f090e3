// Plain-text columns for the terminal: UTF-8 text measured in characters (every character the
// lab prints, "×" and "–" included, takes one column), padded to a width.
//
// Example:
//   padded("1.26x [1.10–1.45]", 20);     // 17 characters and 3 spaces
//   padded("0.004 s", 9, true);          // "  0.004 s"
//   wrapped("a b c", 3, "\n  ");         // "a b\n  c"
#pragma once

#include <cstddef>
#include <string>

namespace alloclab::lab {

inline std::size_t display_width(const std::string& text) {
  std::size_t width = 0;
  for (const char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;  // not a continuation byte
  return width;
}

// `text` and spaces up to `width` characters (before it when `right`); never cut.
inline std::string padded(const std::string& text, std::size_t width, bool right = false) {
  const std::size_t have = display_width(text);
  const std::string fill(have < width ? width - have : 0, ' ');
  return right ? fill + text : text + fill;
}

// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole),
// joined by `separator` ("\n" and an indent).
inline std::string wrapped(const std::string& text, std::size_t width,
                           const std::string& separator) {
  std::string out, line;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out += line + separator;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

}  // namespace alloclab::lab
