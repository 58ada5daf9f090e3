// Test plan: the malloc table (src/lab/mallocs/malloc_table.hpp) is the one place a malloc is
// described, and every consumer reads it.
//   | what                                              | test                                 |
//   |---------------------------------------------------|--------------------------------------|
//   | scripts/deps.sh installs exactly the table's       | MallocTable.DepsShInstallsEvery...   |
//   | packages (apt and built-from routes)               |                                      |
//   | a throwaway entry reaches --malloc's help, `list`, | MallocTable.AThrowawayEntryReaches.. |
//   | try's defaults and --variants, the plan, the       |                                      |
//   | worker environment and the knob variables          |                                      |
//   | the live malloc's statistics come from its entry   | MallocTable.EachPurgeNamesOneMalloc  |
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "main/cli.hpp"
#include "mallocs/knobs.hpp"
#include "mallocs/malloc_table.hpp"
#include "plan/malloc_choice.hpp"

namespace {

namespace fs = std::filesystem;
using namespace alloclab::mallocs;

fs::path deps_script() {
  return fs::path(ALLOCLAB_TEST_DATA).parent_path().parent_path() / "scripts" / "deps.sh";
}

// The words of `NAME=(...)` in a bash file (the array may span lines).
std::set<std::string> bash_array(const fs::path& file, const std::string& name) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::regex array(name + R"re(=\(([^)]*)\))re");
  std::smatch found;
  const std::string all = text.str();
  if (!std::regex_search(all, found, array)) return {};
  std::istringstream words(found[1].str());
  std::set<std::string> out;
  for (std::string w; words >> w;) out.insert(w);
  return out;
}

TEST(MallocTable, DepsShInstallsEveryMallocPackage) {
  const std::set<std::string> installed = bash_array(deps_script(), "ALLOCLAB_MALLOC_PACKAGES");
  ASSERT_FALSE(installed.empty()) << deps_script() << ": no ALLOCLAB_MALLOC_PACKAGES";
  std::set<std::string> wanted;
  for (const malloc_entry& e : malloc_registry()) {
    const std::string package(e.package.debian);
    const package_route route = e.package.route;
    if (route == package_route::apt || route == package_route::built_from) wanted.insert(package);
    if (route == package_route::fetched_from) {
      EXPECT_EQ(installed.count(package), 0u) << e.name << ": " << package << " is fetched";
    }
    if (route == package_route::built_from || route == package_route::fetched_from) {
      EXPECT_FALSE(e.package.how.empty()) << e.name << ": say how to build it";
    }
  }
  EXPECT_EQ(installed, wanted) << "scripts/deps.sh's ALLOCLAB_MALLOC_PACKAGES and the malloc "
                                  "table (src/lab/mallocs/malloc_table.cpp) disagree";
}

TEST(MallocTable, EachPurgeNamesOneMalloc) {
  for (const malloc_entry& e : malloc_registry()) {
    if (e.purge == alloclab::purge_kind::none) continue;
    const malloc_entry* named = malloc_purged_by(e.purge);
    ASSERT_NE(named, nullptr) << e.name;
    // A tuning variant is recognised live as the malloc it tunes, listed before it.
    EXPECT_EQ(named->package.debian, e.package.debian) << e.name;
  }
  EXPECT_EQ(malloc_purged_by(alloclab::purge_kind::none), nullptr);
  EXPECT_EQ(malloc_purged_by(alloclab::purge_kind::glibc_malloc_trim)->name, "glibc");
}

// What `alloclab ARGS` prints on stdout, run in this process (the table's throwaway entry is in
// this process only).
std::string cli_output(std::vector<std::string> args) {
  args.insert(args.begin(), "alloclab");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  testing::internal::CaptureStdout();
  const int status = alloclab::lab::run_cli(static_cast<int>(argv.size()), argv.data());
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 0) << out;
  return out;
}

bool has_variable(const environment& env, const std::string& name, const std::string& value) {
  return std::find(env.begin(), env.end(), std::make_pair(name, value)) != env.end();
}

// docs/design.md: adding a malloc is one table entry. One is added here (a glibc tuning with a
// knob of its own) and every consumer sees it; nothing else is changed.
TEST(MallocTable, AThrowawayEntryReachesEveryConsumer) {
  const std::string name = "glibc_throwaway";
  EXPECT_EQ(find_malloc(name), nullptr);
  {
    const scoped_malloc_entry throwaway(
        {"glibc_throwaway",
         "glibc with MALLOC_ARENA_MAX=3 (a test's throwaway entry)",
         {"libc6", package_route::base_system, {}},
         {},
         {{"MALLOC_ARENA_MAX", "3"}},
         "libc.so.6",
         {{"mallinfo2", "libc.so.6"}},
         /*try_default=*/true,
         {knob_style::one_variable_each,
          {{"throwaway_knob", knob_value::count, {"ALLOCLAB_THROWAWAY_KNOB"}}},
          nullptr},
         {nullptr, "a throwaway has none"},
         alloclab::purge_kind::none});
    ASSERT_NE(find_malloc(name), nullptr);

    // --malloc's help (run and compare --paired), `alloclab list`, try's defaults and knobs.
    EXPECT_NE(cli_output({"run", "--help"}).find("newlib_nano, " + name + ", all"),
              std::string::npos);
    EXPECT_NE(cli_output({"list"}).find(name), std::string::npos);
    const std::string try_help = cli_output({"try", "--help"});
    EXPECT_NE(try_help.find("dlmalloc," + name + ", those installed"), std::string::npos)
        << try_help;
    EXPECT_NE(try_help.find(name + ": throwaway_knob"), std::string::npos) << try_help;
    const std::vector<std::string> defaults = try_default_mallocs();
    EXPECT_NE(std::find(defaults.begin(), defaults.end(), name), defaults.end());

    // The plan takes it by name and in "all", installed, with its environment; other cells
    // have that environment removed.
    const auto chosen = alloclab::lab::resolve_mallocs({name}, false);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].label, name);
    EXPECT_TRUE(chosen[0].missing.empty()) << chosen[0].missing;
    const auto every = alloclab::lab::resolve_mallocs({"all"}, false);
    EXPECT_EQ(every.back().label, name);
    const worker_env own = alloclab::lab::environment_for(chosen[0]);
    EXPECT_TRUE(has_variable(own.set, "MALLOC_ARENA_MAX", "3"));

    // Its knob: parsed, set as its variable, removed from every other run.
    const auto variants = parse_variants(name + ":throwaway_knob=7");
    ASSERT_EQ(variants.size(), 1u);
    EXPECT_TRUE(has_variable(knob_environment(variants[0]), "ALLOCLAB_THROWAWAY_KNOB", "7"));
    const auto removed = knob_variables();
    EXPECT_NE(std::find(removed.begin(), removed.end(), "ALLOCLAB_THROWAWAY_KNOB"), removed.end());
  }
  EXPECT_EQ(find_malloc(name), nullptr);
  EXPECT_EQ(cli_output({"run", "--help"}).find(name), std::string::npos);
}

}  // namespace
