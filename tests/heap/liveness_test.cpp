#include "mallocs/liveness.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "child.hpp"
#include "frames/heap/cell.hpp"
#include "mallocs/malloc_table.hpp"

using namespace alloclab::mallocs;
using heap_test::run_child;

namespace {

bool externally_preloaded() {
  const char* p = std::getenv("LD_PRELOAD");
  return p != nullptr && *p != '\0';
}

}  // namespace

TEST(Liveness, InProcessTheAllocatorIsGlibc) {
  if (heap_test::under_asan()) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  if (externally_preloaded()) GTEST_SKIP() << "LD_PRELOAD is set for the test run";
  const live_allocator l = prove_live(*find_malloc("glibc"));
  EXPECT_TRUE(l.ok) << l.detail;
  EXPECT_TRUE(l.malloc_owner_ok);
  EXPECT_TRUE(l.proof_symbol_found);
  EXPECT_NE(l.malloc_owner_path.find("libc.so.6"), std::string::npos) << l.malloc_owner_path;
  EXPECT_EQ(l.malloc_owner_path, l.free_owner_path);
  EXPECT_TRUE(l.detail.empty());
}

TEST(Liveness, InProcessOtherAllocatorsAreNotLive) {
  if (heap_test::under_asan()) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  if (externally_preloaded()) GTEST_SKIP() << "LD_PRELOAD is set for the test run";
  for (const char* name :
       {"jemalloc", "mimalloc", "tcmalloc", "tbbmalloc", "dlmalloc", "newlib", "newlib_nano"}) {
    const live_allocator l = prove_live(*find_malloc(name));
    EXPECT_FALSE(l.ok) << name;
    EXPECT_FALSE(l.malloc_owner_ok) << name;
    EXPECT_NE(l.detail.find("libc.so.6"), std::string::npos) << l.detail;
  }
}

TEST(Liveness, GlibcVariantsRequireTheirEnvironment) {
  if (heap_test::under_asan()) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  if (externally_preloaded()) GTEST_SKIP() << "LD_PRELOAD is set for the test run";
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) GTEST_SKIP() << "MALLOC_ARENA_MAX is set";
  const live_allocator l = prove_live(*find_malloc("glibc_arena2"));
  EXPECT_TRUE(l.malloc_owner_ok);
  EXPECT_FALSE(l.ok);
  ASSERT_EQ(l.env_mismatch.size(), 1u);
  EXPECT_EQ(l.env_mismatch[0], "MALLOC_ARENA_MAX");
}

TEST(Liveness, LibraryMatching) {
  EXPECT_TRUE(library_matches("/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6"));
  EXPECT_FALSE(library_matches("/lib/x86_64-linux-gnu/libc.so.6", "libjemalloc.so.2"));
  EXPECT_FALSE(library_matches("", "libc.so.6"));
  const auto libc = resolve_library("libc.so.6");
  ASSERT_TRUE(libc.has_value());
  EXPECT_TRUE(library_matches(*libc, *libc));
}

// --- in a child process, under the real LD_PRELOAD ------------------------------------------

class LivenessInChild : public ::testing::TestWithParam<std::string> {};

TEST_P(LivenessInChild, ProofNamesThePreloadedAllocator) {
  if (heap_test::under_asan()) GTEST_SKIP() << "cannot preload an allocator under ASan";
  const malloc_entry* e = find_malloc(GetParam());
  ASSERT_NE(e, nullptr);
  if (!installed(*e)) GTEST_SKIP() << not_installed_reason(*e);
  const worker_env env = worker_environment(*e);
  const worker_outcome o =
      run_child("live:" + GetParam(), env.set, {}, std::chrono::seconds(60), env.unset);
  ASSERT_TRUE(o.succeeded()) << o.describe() << "\n" << o.stderr_tail;
  const auto j = nlohmann::json::parse(o.stdout_text);
  EXPECT_TRUE(j.at("ok").get<bool>()) << j.dump(2);
  EXPECT_EQ(j.at("expected"), GetParam());
  const std::string owner = j.at("malloc_owner_path").get<std::string>();
  EXPECT_NE(owner.find(std::string(e->malloc_owner)), std::string::npos) << owner;
  EXPECT_TRUE(j.at("proof_symbol_found").get<bool>());
  EXPECT_TRUE(j.at("purge").at("available").get<bool>()) << j.dump(2);
  // The purge found at run time is the preloaded allocator's own ("glibc_arena2" -> "glibc ...").
  const std::string family = GetParam().substr(0, GetParam().find('_'));
  EXPECT_EQ(j.at("purge").at("method").get<std::string>().rfind(family + " ", 0), 0u) << j.dump(2);
  EXPECT_EQ(j.at("purge").at("rc").get<int>(), 0) << "the purge reported an error: " << j.dump(2);
}

INSTANTIATE_TEST_SUITE_P(AllAllocators, LivenessInChild,
                         ::testing::Values("glibc", "glibc_arena2", "glibc_trim", "jemalloc",
                                           "mimalloc", "tcmalloc", "tbbmalloc", "dlmalloc",
                                           "newlib"));

// newlib-nano never gives memory back (no trim): live, proven, and with no purge to call.
TEST(Liveness, NewlibNanoIsLiveWithoutAPurge) {
  if (heap_test::under_asan()) GTEST_SKIP() << "cannot preload an allocator under ASan";
  const malloc_entry* e = find_malloc("newlib_nano");
  ASSERT_NE(e, nullptr);
  if (!installed(*e)) GTEST_SKIP() << not_installed_reason(*e);
  const worker_env env = worker_environment(*e);
  const worker_outcome o =
      run_child("live:newlib_nano", env.set, {}, std::chrono::seconds(60), env.unset);
  ASSERT_TRUE(o.succeeded()) << o.describe() << "\n" << o.stderr_tail;
  const auto j = nlohmann::json::parse(o.stdout_text);
  EXPECT_TRUE(j.at("ok").get<bool>()) << j.dump(2);
  EXPECT_EQ(j.at("malloc_owner_path").get<std::string>(), std::string(e->malloc_owner));
  EXPECT_FALSE(j.at("purge").at("available").get<bool>()) << j.dump(2);
}

TEST(Liveness, ChildWithoutPreloadIsNotMimalloc) {
  if (heap_test::under_asan()) GTEST_SKIP() << "AddressSanitizer owns malloc in this build";
  const worker_outcome o = run_child("live:mimalloc");
  ASSERT_TRUE(o.succeeded()) << o.describe() << "\n" << o.stderr_tail;
  const auto j = nlohmann::json::parse(o.stdout_text);
  EXPECT_FALSE(j.at("ok").get<bool>());
  EXPECT_NE(j.at("malloc_owner_path").get<std::string>().find("libc.so.6"), std::string::npos);
}

TEST(Liveness, ABogusPreloadIsIgnoredByLdSoAndCaughtByTheProof) {
  if (heap_test::under_asan()) GTEST_SKIP() << "cannot preload under ASan";
  const worker_outcome o =
      run_child("live:jemalloc", {{"LD_PRELOAD", "/nonexistent/libjemalloc.so.2"}}, {},
                std::chrono::seconds(60), {});
  ASSERT_TRUE(o.succeeded()) << o.describe() << "\n" << o.stderr_tail;
  EXPECT_NE(o.stderr_tail.find("cannot be preloaded"), std::string::npos) << o.stderr_tail;
  const auto j = nlohmann::json::parse(o.stdout_text);
  EXPECT_FALSE(j.at("ok").get<bool>());
  EXPECT_FALSE(j.at("proof_symbol_found").get<bool>());
}
