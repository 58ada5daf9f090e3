// Test plan: the lab's stages include only downward (docs/design.md, "The lab's pipeline").
//   The stage order is declared once, below, lowest first; an `#include "<stage>/..."` from a
//   file of a lower stage to a higher one is an upward arrow. `main/` wires everything and is
//   excepted. There are none (NoStageIncludesAHigherOne; issue 38 counted 17), and the reader
//   that finds them is shown to find one in a small tree of its own (FindsAnUpwardInclude);
//   every folder of src/lab has a rank (EveryFolderIsAStage).
#include <unistd.h>

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

// Lowest first. A stage may include the stages before it, never those after it. io/ (bad input,
// output, files written atomically) and text/ (words every stage writes) are leaves any stage
// uses. claims/ (the seed claims, compiled in, and the range a claim accepts) is a table the
// plan draws from, like workloads/ and strategies/. cli/ (what every command's options share)
// comes just before the frames, which register their own commands. http/ (the server `alloclab
// serve` runs) and load/ (the load generators that drive it) are components the serve frame
// uses; they stand on the tables and the measuring process, below the plan. advise comes after
// frames: it reconciles two frames' own parts (a replay's cells and how it sized its arena, the
// program frame's real runs and its `try` request), a consumer of frames as main is.
const std::vector<std::string> stage_order = {
    "io",      "text",      "stats",      "model",    "records", "lockstep", "mallocs",
    "process", "workloads", "strategies", "claims",   "measure", "trace",    "http",
    "load",    "plan",      "simulate",   "schedule", "results", "render",   "compare",
    "merge",   "export",    "cli",        "frames",   "advise",  "main"};

fs::path lab_sources() {
  return fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path() / "src" / "lab";
}

std::size_t rank_of(const std::string& stage) {
  return static_cast<std::size_t>(std::find(stage_order.begin(), stage_order.end(), stage) -
                                  stage_order.begin());
}

// "file -> stage" for every include of a later stage under `root`, `main/` excepted.
std::set<std::string> upward_includes(const fs::path& root) {
  const std::regex include_of_stage(R"re(^\s*#include "([a-z_]+)/)re");
  std::set<std::string> arrows;
  for (const auto& file : fs::recursive_directory_iterator(root)) {
    if (!file.is_regular_file()) continue;
    const fs::path relative = fs::relative(file.path(), root);
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

TEST(Layering, NoStageIncludesAHigherOne) {
  for (const std::string& arrow : upward_includes(lab_sources()))
    ADD_FAILURE() << arrow << ": a lower stage reaches up";
}

TEST(Layering, FindsAnUpwardInclude) {
  const fs::path root =
      fs::path(::testing::TempDir()) / ("alloclab_layering_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto write_source = [&root](const std::string& path, const std::string& text) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  };
  write_source("plan/plan.cpp",
               "#include \"stats/stats.hpp\"\n  #include \"render/markdown.hpp\"\n");
  write_source("frames/heap/cell.cpp", "#include \"main/cli.hpp\"\n#include \"plan/plan.hpp\"\n");
  write_source("main/cli.cpp", "#include \"frames/heap/cell.hpp\"\n");
  const std::set<std::string> expected = {"frames/heap/cell.cpp -> main",
                                          "plan/plan.cpp -> render"};
  EXPECT_EQ(upward_includes(root), expected);
  fs::remove_all(root);
}

}  // namespace
