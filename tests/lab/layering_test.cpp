// Test plan: the lab's stages include only downward (docs/design.md, "The lab's pipeline").
//   The stage order is declared once, below, lowest first; an `#include "<stage>/..."` from a
//   file of a lower stage to a higher one is an upward arrow. `main/` wires everything and is
//   excepted. Today's upward arrows are listed, so a new one fails the test, and one that is
//   gone must be taken off the list (UpwardIncludesAreOnlyTheKnownOnes); every folder of src/lab
//   has a rank (EveryFolderIsAStage).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

// Lowest first. A stage may include the stages before it, never those after it. claims/ (the
// seed claims, compiled in) is a table the plan draws from, like workloads/ and strategies/.
// advise comes after frames: it reconciles two frames' own parts (a replay's cells and how it
// sized its arena, the program frame's real runs and its `try` request), a consumer of frames as
// main is.
const std::vector<std::string> stage_order = {
    "io",       "text",      "stats",      "model",  "records", "lockstep", "mallocs",
    "process",  "workloads", "strategies", "claims", "measure", "trace",    "plan",
    "simulate", "schedule",  "results",    "render", "compare", "merge",    "export",
    "cli",      "frames",    "advise",     "main"};

fs::path lab_sources() {
  return fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path() / "src" / "lab";
}

std::size_t rank_of(const std::string& stage) {
  return static_cast<std::size_t>(std::find(stage_order.begin(), stage_order.end(), stage) -
                                  stage_order.begin());
}

// "file -> stage" for every include of a later stage, `main/` excepted.
std::set<std::string> upward_includes() {
  const std::regex include_of_stage(R"re(^\s*#include "([a-z_]+)/)re");
  std::set<std::string> arrows;
  for (const auto& file : fs::recursive_directory_iterator(lab_sources())) {
    if (!file.is_regular_file()) continue;
    const fs::path relative = fs::relative(file.path(), lab_sources());
    const std::string from = relative.begin()->string();
    if (from == "main" || relative.has_parent_path() == false) continue;
    std::ifstream in(file.path());
    std::string line;
    std::smatch found;
    while (std::getline(in, line)) {
      if (!std::regex_search(line, found, include_of_stage)) continue;
      const std::string to = found[1].str();
      if (rank_of(to) < stage_order.size() && rank_of(to) > rank_of(from))
        arrows.insert(relative.generic_string() + " -> " + to);
    }
  }
  return arrows;
}

TEST(Layering, EveryFolderIsAStage) {
  for (const auto& entry : fs::directory_iterator(lab_sources())) {
    if (!entry.is_directory()) continue;
    EXPECT_LT(rank_of(entry.path().filename().string()), stage_order.size())
        << entry.path().filename() << ": give it its place in stage_order";
  }
}

TEST(Layering, UpwardIncludesAreOnlyTheKnownOnes) {
  // Known upward arrows (issue 38), each to go: take it off when it is gone.
  const std::set<std::string> known = {
      "process/worker_records.hpp -> plan",
      "process/worker_records.hpp -> schedule",
      "schedule/tracked_comparisons.cpp -> results",
  };
  const std::set<std::string> arrows = upward_includes();
  for (const std::string& arrow : arrows)
    EXPECT_EQ(known.count(arrow), 1u) << arrow << ": a lower stage reaches up";
  for (const std::string& arrow : known)
    EXPECT_EQ(arrows.count(arrow), 1u) << arrow << " is gone: take it off the known list";
}

}  // namespace
