#include "process/proc_memory.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <sys/mman.h>

using namespace alloclab::process;

TEST(Memory, ParsesProcStatus) {
  const char* text =
      "Name:\theap_tests\n"
      "VmPeak:\t  123456 kB\n"
      "VmHWM:\t    8192 kB\n"
      "VmRSS:\t    4096 kB\n"
      "Threads:\t1\n";
  const proc_status s = parse_proc_status(text);
  ASSERT_TRUE(s.vm_hwm_bytes.has_value());
  ASSERT_TRUE(s.vm_rss_bytes.has_value());
  EXPECT_EQ(*s.vm_hwm_bytes, 8192u * 1024u);
  EXPECT_EQ(*s.vm_rss_bytes, 4096u * 1024u);
}

TEST(Memory, MissingOrGarbledFieldsStayEmpty) {
  const proc_status s = parse_proc_status("VmRSS:\tlots kB\nName: x");
  EXPECT_FALSE(s.vm_rss_bytes.has_value());
  EXPECT_FALSE(s.vm_hwm_bytes.has_value());
  EXPECT_FALSE(parse_proc_status("").vm_rss_bytes.has_value());
  EXPECT_FALSE(parse_proc_status("VmRSS:\t12 MB\n").vm_rss_bytes.has_value());
}

TEST(Memory, ReadsThisProcess) {
  const proc_status s = read_proc_status();
  ASSERT_TRUE(s.vm_rss_bytes.has_value());
  ASSERT_TRUE(s.vm_hwm_bytes.has_value());
  EXPECT_GT(*s.vm_rss_bytes, 0u);
  EXPECT_GE(*s.vm_hwm_bytes + (std::uint64_t{1} << 20), *s.vm_rss_bytes);  // lazy counters
}

TEST(Memory, TouchingFreshPagesRaisesRssAndMinorFaults) {
  const fault_counts f0 = read_faults();
  const std::uint64_t rss0 = read_proc_status().vm_rss_bytes.value_or(0);
  constexpr std::size_t bytes = std::size_t{32} << 20;
  // mmap, not malloc: earlier tests may have left glibc holding resident free memory.
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* p = static_cast<volatile unsigned char*>(m);
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const std::uint64_t rss1 = read_proc_status().vm_rss_bytes.value_or(0);
  const fault_counts f1 = read_faults();
  ::munmap(m, bytes);
  EXPECT_GE(f1.minor - f0.minor, 1000u);  // 8192 pages (fewer with transparent huge pages)
  EXPECT_GT(rss1, rss0 + (bytes / 2));
  // The kernel's RSS counters are per-thread caches synced lazily: allow 1 MiB of slack.
  EXPECT_GE(read_proc_status().vm_hwm_bytes.value_or(0) + (std::uint64_t{1} << 20), rss1);
}

TEST(Memory, FragmentationArithmetic) {
  EXPECT_DOUBLE_EQ(fragmentation(200, 100), 2.0);
  EXPECT_DOUBLE_EQ(fragmentation(100, 100), 1.0);
  EXPECT_DOUBLE_EQ(fragmentation(50, 100), 0.5);
  EXPECT_DOUBLE_EQ(fragmentation(300, 100, 100), 2.0);  // baseline subtracted
  EXPECT_DOUBLE_EQ(fragmentation(100, 100, 200), 0.0);  // baseline above peak: no heap
  EXPECT_DOUBLE_EQ(fragmentation(std::uint64_t{3} << 30, std::uint64_t{1} << 30), 3.0);
  EXPECT_TRUE(std::isnan(fragmentation(100, 0)));
}
