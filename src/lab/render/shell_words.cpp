#include "render/shell_words.hpp"

namespace alloclab::lab {

std::string shell_word(const std::string& word) {
  const bool bare = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_./:=,+%@") == std::string::npos;
  if (bare) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) line += (line.empty() ? "" : " ") + shell_word(w);
  return line;
}

}  // namespace alloclab::lab
