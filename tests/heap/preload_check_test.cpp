#include "mallocs/preload_check.hpp"

#include <gtest/gtest.h>

#include "mallocs/malloc_table.hpp"

using namespace alloclab::mallocs;

TEST(PreloadCheck, RejectsABogusPath) {
  const preload_check c = validate_preload("/nonexistent/dir/libnotthere.so");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.error.find("does not exist"), std::string::npos) << c.error;
  const preload_check s = validate_preload("libnotthere_either.so.3");
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.error.find("not found"), std::string::npos) << s.error;
  EXPECT_FALSE(validate_preload("").ok);
}

TEST(PreloadCheck, RejectsADirectoryAndANonElfFile) {
  const preload_check d = validate_preload("/tmp");
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.error.find("not a regular file"), std::string::npos) << d.error;
  const preload_check t = validate_preload("/etc/os-release");
  EXPECT_FALSE(t.ok);
  EXPECT_NE(t.error.find("not an ELF file"), std::string::npos) << t.error;
}

TEST(PreloadCheck, RejectsLibrariesThatAreNotAMalloc) {
  int checked = 0;
  for (const char* lib : {"libz.so.1", "libm.so.6"}) {
    const auto path = resolve_library(lib);
    if (!path) continue;
    const preload_check c = validate_preload(*path);
    EXPECT_FALSE(c.ok) << lib;
    EXPECT_NE(c.error.find("is not a malloc implementation"), std::string::npos) << c.error;
    ++checked;
  }
  ASSERT_GT(checked, 0) << "neither libz.so.1 nor libm.so.6 found";
}

TEST(PreloadCheck, RejectsAnExecutable) {
  const preload_check c = validate_preload("/proc/self/exe");
  EXPECT_FALSE(c.ok);  // a PIE is ET_DYN but does not export malloc/free
}

TEST(PreloadCheck, AcceptsRealAllocators) {
  const preload_check libc = validate_preload("libc.so.6");
  EXPECT_TRUE(libc.ok) << libc.error;
  int checked = 0;
  for (const malloc_entry& e : malloc_registry()) {
    if (e.preload.empty() || !installed(e)) continue;
    for (std::string_view so : e.preload) {
      const preload_check c = validate_preload(so);
      EXPECT_TRUE(c.ok) << e.name << ": " << c.error;
      EXPECT_EQ(c.path.front(), '/');
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no preloadable allocator installed";
}
