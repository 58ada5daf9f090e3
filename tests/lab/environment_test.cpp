// Test plan: the build's git revision is fixed when the lab is built, not asked of git at run
// time (results/environment.cpp, cmake/BuildRevision.cmake).
//   a file created in the source tree after the build changes no run's revision
//     -> BuildRevision.AnUntrackedFileAfterTheBuildChangesNothing
//   `alloclab --version` prints the version and that revision -> BuildRevision.VersionNamesIt
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli_support.hpp"
#include "results/build_revision.hpp"
#include "results/environment.hpp"

namespace alloclab::lab {
namespace {
namespace fs = std::filesystem;

const fs::path source_tree = fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path();

std::string revision_now() {
  return describe_environment(current_build()).git_revision.value_or("");
}

// Before, every run asked git: an untracked file turned each result into "<rev>-dirty", and the
// binary then refused to merge its own shards as "built differently".
TEST(BuildRevision, AnUntrackedFileAfterTheBuildChangesNothing) {
  const std::string before = revision_now();
  EXPECT_EQ(before, build_revision());
  const fs::path stray = source_tree / ("alloclab_stray_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(stray) << "created after the build\n";
  const std::string after = revision_now();
  fs::remove(stray);
  EXPECT_EQ(after, before);
}

class BuildRevisionCli : public cli_support::binary_test {};

TEST_F(BuildRevisionCli, VersionNamesIt) {
  const cli_support::outcome o = run("--version");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("alloclab ", 0), 0u) << o.out;
  const std::string revision = build_revision();
  EXPECT_NE(o.out.find(revision.empty() ? "built outside a git checkout" : revision),
            std::string::npos)
      << o.out;
}

}  // namespace
}  // namespace alloclab::lab
