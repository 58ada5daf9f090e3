// Test plan for alloclab/allocator_purge.hpp. Each malloc is tested in a child process
// (tests/support/purge_probe.cpp) started with LD_PRELOAD of that malloc, as the lab runs them.
//
// | public member | test |
// |---|---|
// | find(), kind(), library(), reason(), run() in this process | finds_the_purge_of_this_process |
// | find() + run() under glibc, jemalloc, mimalloc, tcmalloc, tbbmalloc | under_malloc.finds_its_own_purge |
// | find() under a malloc without a known purge | under_malloc.finds_its_own_purge/unknown_malloc |
// | to_string(purge_kind) | names_every_kind |
#include <alloclab/allocator_purge.hpp>
#include <alloclab/build_info.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>

#include "support/text_contains.hpp"

namespace {

using alloclab::allocator_purge;
using alloclab::purge_kind;
using alloclab::testing::contains;

TEST(allocator_purge, finds_the_purge_of_this_process) {
  const allocator_purge purge = allocator_purge::find();
  std::printf("this process: %s; %s\n", alloclab::to_string(purge.kind()), purge.reason().c_str());
  EXPECT_FALSE(purge.reason().empty());
  EXPECT_FALSE(purge.library().empty());
  if ((alloclab::build::address_sanitizer || alloclab::build::thread_sanitizer)) {
    // The sanitizer runtime in the executable owns malloc: whatever is found must be said.
    EXPECT_TRUE(contains(purge.reason(), purge.library()));
    EXPECT_EQ(purge.run(), purge.kind() != purge_kind::none);
    return;
  }
  EXPECT_EQ(purge.kind(), purge_kind::glibc_malloc_trim);
  EXPECT_TRUE(contains(purge.library(), "libc.so")) << purge.library();
  EXPECT_TRUE(contains(purge.reason(), "malloc_trim")) << purge.reason();
  EXPECT_TRUE(purge.run());
}

TEST(allocator_purge, names_every_kind) {
  EXPECT_STREQ(alloclab::to_string(purge_kind::none), "none");
  EXPECT_STREQ(alloclab::to_string(purge_kind::jemalloc_mallctl),
               "jemalloc mallctl(arena.4096.purge)");
  EXPECT_STREQ(alloclab::to_string(purge_kind::mimalloc_collect), "mimalloc mi_collect(true)");
  EXPECT_STREQ(alloclab::to_string(purge_kind::tcmalloc_release),
               "tcmalloc MallocExtension_ReleaseFreeMemory()");
  EXPECT_STREQ(alloclab::to_string(purge_kind::tbbmalloc_clean),
               "tbbmalloc scalable_allocation_command(TBBMALLOC_CLEAN_ALL_BUFFERS)");
  EXPECT_STREQ(alloclab::to_string(purge_kind::dlmalloc_trim), "dlmalloc dlmalloc_trim(0)");
  EXPECT_STREQ(alloclab::to_string(purge_kind::newlib_trim), "newlib _malloc_trim_r(0)");
  EXPECT_STREQ(alloclab::to_string(purge_kind::glibc_malloc_trim), "glibc malloc_trim(0)");
  EXPECT_EQ(allocator_purge{}.run(), false) << "a default (none) purge does nothing";
}

struct malloc_case {
  const char* name;
  const char* preload;  // an absolute path, a file name in the library directory, or ""
  purge_kind expected;
  const char* library;  // part of the path of the object that defines malloc
  bool returns_most;    // its purge gives back most of the fragmented 64 MiB (measured)
};

std::string library_path(const std::string& file) {
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu/", "/usr/lib/aarch64-linux-gnu/", "/usr/lib64/", "/usr/lib/"}) {
    struct stat info {};
    if (::stat((dir + file).c_str(), &info) == 0) return dir + file;
  }
  return "";
}

// Runs the probe with `preload`, returning its "key=value" lines.
std::map<std::string, std::string> run_probe(const std::string& preload) {
  const std::string command =
      (preload.empty() ? std::string("env -u LD_PRELOAD ") : "env LD_PRELOAD=" + preload + " ") +
      ALLOCLAB_PURGE_PROBE;
  std::map<std::string, std::string> values;
  FILE* out = ::popen(command.c_str(), "r");
  if (!out) return values;
  char line[4096];
  while (std::fgets(line, sizeof line, out)) {
    std::string text = line;
    if (!text.empty() && text.back() == '\n') text.pop_back();
    const auto equals = text.find('=');
    if (equals != std::string::npos) values[text.substr(0, equals)] = text.substr(equals + 1);
  }
  values["exit"] = std::to_string(::pclose(out));
  return values;
}

class under_malloc : public testing::TestWithParam<malloc_case> {};

TEST_P(under_malloc, finds_its_own_purge) {
  const malloc_case& c = GetParam();
  std::string preload;
  if (*c.preload) {
    preload = c.preload[0] == '/' ? std::string(c.preload) : library_path(c.preload);
    if (preload.empty()) GTEST_SKIP() << c.preload << " is not installed (scripts/deps.sh)";
  }
  std::map<std::string, std::string> probe = run_probe(preload);
  ASSERT_EQ(probe["exit"], "0") << "probe failed under " << c.name;
  std::printf("%-16s %-46s RSS full %s, after free %s, after purge %s\n", c.name,
              probe["kind"].c_str(), probe["rss_full"].c_str(), probe["rss_after_free"].c_str(),
              probe["rss_after_purge"].c_str());
  EXPECT_EQ(probe["kind"], alloclab::to_string(c.expected));
  EXPECT_TRUE(contains(probe["library"], c.library)) << probe["library"];
  EXPECT_EQ(probe["ran"], c.expected == purge_kind::none ? "0" : "1");
  if (c.returns_most) {
    EXPECT_LT(std::stoull(probe["rss_after_purge"]), std::stoull(probe["rss_after_free"]) / 2)
        << "the purge should return most of the freed 63 MiB";
  }
}

INSTANTIATE_TEST_SUITE_P(
    allocator_purge, under_malloc,
    testing::Values(
        malloc_case{"glibc", "", purge_kind::glibc_malloc_trim, "libc.so", true},
        malloc_case{"jemalloc", "libjemalloc.so.2", purge_kind::jemalloc_mallctl, "libjemalloc",
                    true},
        // mimalloc 2.0.9's mi_collect(true) returns almost nothing here while its decommit delay
        // (25 ms) is pending, and little after it; MIMALLOC_DECOMMIT_DELAY=0 returns it at free.
        malloc_case{"mimalloc", "libmimalloc.so.2", purge_kind::mimalloc_collect, "libmimalloc",
                    false},
        malloc_case{"tcmalloc", "libtcmalloc_minimal.so.4", purge_kind::tcmalloc_release,
                    "libtcmalloc_minimal", true},
        // malloc from the proxy, the purge call from libtbbmalloc.
        malloc_case{"tbbmalloc_proxy", "libtbbmalloc_proxy.so.2", purge_kind::tbbmalloc_clean,
                    "libtbbmalloc_proxy", false},
        // A malloc with no purge of its own: glibc's malloc_trim would purge the wrong heap.
        malloc_case{"unknown_malloc", ALLOCLAB_FORWARDING_MALLOC, purge_kind::none,
                    "alloclab_forwarding_malloc", false}),
    [](const testing::TestParamInfo<malloc_case>& param) { return param.param.name; });

}  // namespace
