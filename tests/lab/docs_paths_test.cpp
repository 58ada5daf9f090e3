// Test plan: every path README.md, CHANGELOG.md and docs/*.md name exists.
//   A path is a `code span` starting with one of the repository's top folders (src/, include/,
//   tests/, docs/, scripts/, bench/, deploy/, cmake/, fuzz/, .ci/), or a Markdown link to a
//   local file; `:LINE` suffixes are dropped; spans with wildcards or placeholders (* < > { } $)
//   are patterns, not paths. A built program counts when its source (`NAME.cpp`) exists.
//   (NamedPathsExist; the reader itself: FindsCodeSpansAndLinks.)
//   A source file named from src/lab, in prose, a span or a code block (`plan/plan.cpp`, a word
//   that starts with a folder of src/lab and ends in a source extension), exists under src/lab;
//   results/latest/ is the lab's output, not its source (LabPathsExist; the reader itself:
//   FindsLabPathsInProse).
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

// The source files a Markdown text names relative to src/lab (`lab_folders`: its folders), in
// prose, spans and code blocks alike: a word of path characters that starts with one of those
// folders and ends in a source extension.
std::set<std::string> lab_paths(const std::string& text, const std::set<std::string>& lab_folders) {
  std::set<std::string> paths;
  const std::regex word(R"([A-Za-z0-9_/.+-]+)");
  const std::regex source_path(R"(([a-z_]+)/[A-Za-z0-9_/.+-]*\.(hpp|cpp|h|json|in|js|css))");
  for (std::sregex_iterator i(text.begin(), text.end(), word), end; i != end; ++i) {
    std::string path = (*i)[0].str();
    while (!path.empty() && path.back() == '.') path.pop_back();
    std::smatch found;
    if (!std::regex_match(path, found, source_path) || lab_folders.count(found[1].str()) == 0)
      continue;
    if (path.rfind("results/latest/", 0) == 0) continue;
    paths.insert(path);
  }
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

std::vector<fs::path> documents() {
  std::vector<fs::path> all = {repository / "README.md", repository / "CHANGELOG.md"};
  for (const auto& entry : fs::directory_iterator(repository / "docs"))
    if (entry.path().extension() == ".md") all.push_back(entry.path());
  return all;
}

TEST(DocsPaths, NamedPathsExist) {
  std::size_t checked = 0;
  for (const fs::path& document : documents()) {
    const std::string doc_dir = fs::relative(document.parent_path(), repository).generic_string();
    for (const std::string& path : named_paths(read(document), doc_dir == "." ? "" : doc_dir)) {
      ++checked;
      EXPECT_TRUE(exists_in_repository(path))
          << fs::relative(document, repository).generic_string() << " names " << path;
    }
  }
  EXPECT_GT(checked, 100u) << "the reader found too few paths to be reading the documents";
}

TEST(DocsPaths, FindsLabPathsInProse) {
  const std::set<std::string> folders = {"plan", "frames", "results"};
  const std::set<std::string> found = lab_paths(
      "plan/plan.cpp, frames/serve/load.hpp. src/lab/plan/budget.cpp `frames/<frame>/figures.hpp`"
      " results/latest/results.json, stats/decision.hpp and plan/ alone",
      folders);
  EXPECT_EQ(found, (std::set<std::string>{"plan/plan.cpp", "frames/serve/load.hpp"}));
}

TEST(DocsPaths, LabPathsExist) {
  const fs::path lab = repository / "src" / "lab";
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(lab))
    if (entry.is_directory()) folders.insert(entry.path().filename().string());
  std::size_t checked = 0;
  for (const fs::path& document : documents()) {
    for (const std::string& path : lab_paths(read(document), folders)) {
      ++checked;
      EXPECT_TRUE(fs::exists(lab / path))
          << fs::relative(document, repository).generic_string() << " names src/lab/" << path;
    }
  }
  EXPECT_GT(checked, 50u) << "the reader found too few paths to be reading the documents";
}

}  // namespace
