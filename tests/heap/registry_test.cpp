#include "mallocs/malloc_table.hpp"

#include "mallocs/preload_libraries.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace alloclab::mallocs;

TEST(Registry, HasTheIssueAllocatorsWithUniqueNames) {
  const std::vector<std::string> expected{"glibc",    "glibc_arena2", "glibc_trim", "glibc_nocliff",
                                          "jemalloc", "mimalloc",     "tcmalloc",   "tbbmalloc",
                                          "dlmalloc", "newlib",       "newlib_nano"};
  EXPECT_EQ(malloc_names(), expected);
  std::set<std::string_view> seen;
  for (const malloc_entry& e : malloc_registry()) {
    EXPECT_TRUE(seen.insert(e.name).second) << e.name;
    EXPECT_FALSE(e.package.debian.empty()) << e.name;
    EXPECT_FALSE(e.malloc_owner.empty()) << e.name;
    EXPECT_FALSE(e.proofs.empty()) << e.name;
    EXPECT_EQ(find_malloc(e.name), &e);
  }
  EXPECT_EQ(find_malloc("ptmalloc3"), nullptr);
}

// The lab builds dlmalloc itself (src/preload): it is found by path in the build directory, and
// a machine without it is told how to get it, not to apt install the package it comes from.
TEST(Registry, DlmallocIsTheLabsOwnBuildFoundByPath) {
  const malloc_entry* e = find_malloc("dlmalloc");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->preload.size(), 1u);
  EXPECT_EQ(e->preload[0], std::string(preload_build_dir()) + "/liballoclab_dlmalloc.so");
  EXPECT_EQ(e->malloc_owner, e->preload[0]);
  EXPECT_NE(install_command(*e).find("scripts/fetch-dlmalloc.sh"), std::string::npos);
  EXPECT_EQ(install_command(*find_malloc("jemalloc")), "apt install libjemalloc2");
  malloc_entry moved = *e;
  moved.preload = {"/nonexistent/liballoclab_dlmalloc.so"};
  moved.proofs = {{"dlmallopt", "/nonexistent/liballoclab_dlmalloc.so"}};
  EXPECT_FALSE(installed(moved));
  const std::string reason = not_installed_reason(moved);
  EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
  EXPECT_NE(reason.find("dlmalloc: not installed (/nonexistent/liballoclab_dlmalloc.so not found"),
            std::string::npos)
      << reason;
}

TEST(Registry, GlibcIsAlwaysInstalled) {
  for (const char* name : {"glibc", "glibc_arena2", "glibc_trim", "glibc_nocliff"}) {
    const malloc_entry* e = find_malloc(name);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(installed(*e)) << not_installed_reason(*e);
    EXPECT_TRUE(e->preload.empty());
  }
}

TEST(Registry, ResolvesBareSonamesToExistingFiles) {
  const auto libc = resolve_library("libc.so.6");
  ASSERT_TRUE(libc.has_value());
  EXPECT_EQ(libc->front(), '/');
  EXPECT_FALSE(resolve_library("libdefinitely_not_here.so.9").has_value());
  EXPECT_FALSE(resolve_library("/nonexistent/libc.so.6").has_value());
  EXPECT_FALSE(resolve_library("").has_value());
  const auto dirs = library_search_dirs();
  EXPECT_FALSE(dirs.empty());
  EXPECT_EQ(std::set<std::string>(dirs.begin(), dirs.end()).size(), dirs.size());
}

TEST(Registry, WorkerEnvironmentForGlibcVariants) {
  const worker_env plain = worker_environment(*find_malloc("glibc"));
  EXPECT_TRUE(plain.set.empty());
  auto has = [](const std::vector<std::string>& v, const char* s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(plain.unset, "LD_PRELOAD"));
  EXPECT_TRUE(has(plain.unset, "MALLOC_ARENA_MAX"));
  EXPECT_TRUE(has(plain.unset, "MALLOC_TRIM_THRESHOLD_"));

  const worker_env arena = worker_environment(*find_malloc("glibc_arena2"));
  ASSERT_EQ(arena.set.size(), 1u);
  EXPECT_EQ(arena.set[0].first, "MALLOC_ARENA_MAX");
  EXPECT_EQ(arena.set[0].second, "2");
  EXPECT_FALSE(has(arena.unset, "MALLOC_ARENA_MAX"));
  EXPECT_TRUE(has(arena.unset, "MALLOC_TRIM_THRESHOLD_"));

  const worker_env trim = worker_environment(*find_malloc("glibc_trim"));
  ASSERT_EQ(trim.set.size(), 1u);
  EXPECT_EQ(trim.set[0].first, "MALLOC_TRIM_THRESHOLD_");
  EXPECT_EQ(trim.set[0].second, "131072");
}

TEST(Registry, PreloadEntriesSetLdPreloadToExistingFiles) {
  int checked = 0;
  for (const malloc_entry& e : malloc_registry()) {
    if (e.preload.empty()) continue;
    if (!installed(e)) {
      EXPECT_THROW(worker_environment(e), std::runtime_error) << e.name;
      EXPECT_NE(not_installed_reason(e).find(install_command(e)), std::string::npos);
      continue;
    }
    const worker_env w = worker_environment(e);
    ASSERT_FALSE(w.set.empty());
    EXPECT_EQ(w.set[0].first, "LD_PRELOAD");
    EXPECT_NE(w.set[0].second.find(std::string(e.preload.front())), std::string::npos);
    EXPECT_EQ(w.set[0].second.front(), '/');
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no preloadable allocator installed";
}

TEST(Registry, MissingLibraryIsReportedNotSkipped) {
  malloc_entry fake{"fakemalloc",
                    "test only",
                    {"libfakemalloc1", package_route::apt, {}},
                    {"libfakemalloc.so.1"},
                    {},
                    "libfakemalloc.so.1",
                    {{"fake_malloc", "libfakemalloc.so.1"}},
                    false,
                    {},
                    {},
                    alloclab::purge_kind::none};
  EXPECT_FALSE(installed(fake));
  const preload_resolution r = resolve_preload(fake);
  ASSERT_EQ(r.missing.size(), 1u);
  EXPECT_EQ(r.missing[0], "libfakemalloc.so.1");
  EXPECT_EQ(not_installed_reason(fake),
            "fakemalloc: not installed (libfakemalloc.so.1 not found; apt install libfakemalloc1)");
  EXPECT_THROW(worker_environment(fake), std::runtime_error);
}
