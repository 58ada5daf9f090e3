// Test plan: every path README.md, CHANGELOG.md and docs/*.md name exists.
//   A path is a `code span` starting with one of the repository's top folders (src/, include/,
//   tests/, docs/, scripts/, bench/, deploy/, cmake/, fuzz/, .ci/), or a Markdown link to a
//   local file; `:LINE` suffixes are dropped; spans with wildcards or placeholders (* < > { } $)
//   are patterns, not paths. A built program counts when its source (`NAME.cpp`) exists.
//   (NamedPathsExist; the reader itself: FindsCodeSpansAndLinks.)
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const fs::path repository = fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path();

bool is_repository_path(const std::string& span) {
  static const std::vector<std::string> tops = {"src/",   "include/", "tests/", "docs/", "scripts/",
                                                "bench/", "deploy/",  "cmake/", "fuzz/", ".ci/"};
  for (const std::string& top : tops)
    if (span.rfind(top, 0) == 0) return true;
  return false;
}

// The paths a Markdown text names, relative to the repository (`doc_dir`: the file's folder,
// for its local links).
std::set<std::string> named_paths(const std::string& text, const std::string& doc_dir) {
  std::set<std::string> paths;
  const std::regex code_span(R"(`([^`\s]+)`)");
  const std::regex local_link(R"(\]\(([^)\s#:]+)(#[^)]*)?\))");
  const std::regex line_suffix(R"(:\d+(-\d+)?$)");
  for (std::sregex_iterator i(text.begin(), text.end(), code_span), end; i != end; ++i) {
    std::string span = std::regex_replace((*i)[1].str(), line_suffix, "");
    while (!span.empty() && std::string(".,;:").find(span.back()) != std::string::npos)
      span.pop_back();
    if (span.find_first_of("*<>{}$") != std::string::npos || !is_repository_path(span)) continue;
    paths.insert(span);
  }
  for (std::sregex_iterator i(text.begin(), text.end(), local_link), end; i != end; ++i)
    paths.insert((fs::path(doc_dir) / (*i)[1].str()).lexically_normal().generic_string());
  return paths;
}

bool exists_in_repository(const std::string& path) {
  return fs::exists(repository / path) || fs::exists(repository / (path + ".cpp"));
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DocsPaths, FindsCodeSpansAndLinks) {
  const std::set<std::string> found = named_paths(
      "see `src/lab/plan/plan.cpp:12`, `tests/*_test.cpp`, `results/<stamp>/`, "
      "`docs/budget.md`. and [the lab](lab.md#frames), [web](https://example.org), `x.hpp`",
      "docs");
  EXPECT_EQ(found,
            (std::set<std::string>{"src/lab/plan/plan.cpp", "docs/budget.md", "docs/lab.md"}));
  EXPECT_TRUE(exists_in_repository("src/lab/plan/plan.cpp"));
  EXPECT_FALSE(exists_in_repository("src/lab/no_such_stage/"));
}

TEST(DocsPaths, NamedPathsExist) {
  std::vector<fs::path> documents = {repository / "README.md", repository / "CHANGELOG.md"};
  for (const auto& entry : fs::directory_iterator(repository / "docs"))
    if (entry.path().extension() == ".md") documents.push_back(entry.path());
  std::size_t checked = 0;
  for (const fs::path& document : documents) {
    const std::string doc_dir = fs::relative(document.parent_path(), repository).generic_string();
    for (const std::string& path : named_paths(read(document), doc_dir == "." ? "" : doc_dir)) {
      ++checked;
      EXPECT_TRUE(exists_in_repository(path))
          << fs::relative(document, repository).generic_string() << " names " << path;
    }
  }
  EXPECT_GT(checked, 100u) << "the reader found too few paths to be reading the documents";
}

}  // namespace
