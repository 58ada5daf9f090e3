// A command line written so that a POSIX shell reads back the same words: the results' and
// reports' record of how a run was started, to copy and run again.
//
// Example:
//   alloclab::lab::shell_words({"python3", "-c", "print(1)"});  // "python3 -c 'print(1)'"
#pragma once

#include <string>
#include <vector>

namespace alloclab::lab {

/// One word: bare when it holds nothing a shell would interpret, else single-quoted.
std::string shell_word(const std::string& word);
/// The words, each as shell_word, joined by spaces.
std::string shell_words(const std::vector<std::string>& words);

}  // namespace alloclab::lab
