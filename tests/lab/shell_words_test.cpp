// render/shell_words.hpp: a command line as a shell would read it back, for the report's
// "command" and the program frame's heading.
//
// Test plan:
//  - plain words stay bare; words with spaces, quotes or shell syntax are single-quoted;
//  - an embedded single quote survives (closed, escaped, reopened); an empty word is '';
//  - the quoted line, split again by /bin/sh, gives back the same words.
#include "render/shell_words.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace alloclab::lab {
namespace {

TEST(ShellWords, PlainWordsStayBareAndOthersAreQuoted) {
  EXPECT_EQ(shell_words({"alloclab", "try", "--", "python3", "-c", "x=[str(i) for i in r]"}),
            "alloclab try -- python3 -c 'x=[str(i) for i in r]'");
  EXPECT_EQ(shell_words({"a", ""}), "a ''");
  EXPECT_EQ(shell_words({"it's"}), "'it'\\''s'");
  EXPECT_EQ(shell_words({"$HOME", "a;b", "*"}), "'$HOME' 'a;b' '*'");
}

TEST(ShellWords, TheShellReadsBackTheSameWords) {
  const std::vector<std::string> words{"print", "it's a \"test\"", "", "$x `y` \\z", "plain"};
  FILE* shell = ::popen(("printf '%s\\n' " + shell_words(words)).c_str(), "r");
  ASSERT_NE(shell, nullptr);
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, shell) != nullptr) out += buffer;
  ASSERT_EQ(::pclose(shell), 0);
  std::string expected;
  for (const std::string& w : words) expected += w + "\n";
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace alloclab::lab
