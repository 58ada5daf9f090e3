// Test plan for alloclab/huge_page_buffer.hpp (THP fixtures: tests/data/thp/).
//
// | public member | test |
// |---|---|
// | read_thp_mode(), to_string(thp_mode) | reads_every_thp_mode |
// | constructor: 2 MiB alignment, rounding, guard pages, errors | maps_an_aligned_isolated_region, rejects_bad_sizes |
// | advised(), fallback_reason(), mode(): THP never / unavailable | falls_back_visibly_when_thp_is_never_or_missing |
// | huge_backed_bytes(), resident_bytes(): smaps parsing | counts_only_entries_inside_the_buffer, smaps_unreadable_is_nullopt |
// | populate(), huge_backed_bytes() on the live kernel | live_kernel_backs_an_advised_buffer_with_huge_pages |
// | fallback on the live kernel | live_fallback_gets_no_huge_pages |
// | move constructor / assignment | moves_ownership |
// | as an arena buffer | serves_as_an_arena_buffer |
#include <alloclab/arena_resource.hpp>
#include <alloclab/huge_page_buffer.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory_resource>
#include <sstream>
#include <string>
#include <vector>

#include "support/text_contains.hpp"

namespace {

using alloclab::huge_page_buffer;
using alloclab::huge_page_options;
using alloclab::thp_mode;
using alloclab::testing::contains;

constexpr std::size_t mib = std::size_t{1} << 20;
const std::string thp_fixtures = std::string(ALLOCLAB_TEST_DATA) + "/thp/";

huge_page_options with_thp(const std::string& fixture) {
  huge_page_options options;
  options.thp_enabled_path = thp_fixtures + fixture;
  return options;
}

TEST(huge_page_buffer, reads_every_thp_mode) {
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "always"), thp_mode::always);
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "madvise"), thp_mode::madvise);
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "never"), thp_mode::never);
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "no_choice"), thp_mode::unavailable);
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "unknown_choice"), thp_mode::unavailable);
  EXPECT_EQ(alloclab::read_thp_mode(thp_fixtures + "missing"), thp_mode::unavailable);
  EXPECT_STREQ(alloclab::to_string(thp_mode::always), "always");
  EXPECT_STREQ(alloclab::to_string(thp_mode::madvise), "madvise");
  EXPECT_STREQ(alloclab::to_string(thp_mode::never), "never");
  EXPECT_STREQ(alloclab::to_string(thp_mode::unavailable), "unavailable");
}

// The /proc/self/maps line of the mapping that starts at `address`, or "".
std::string maps_entry_at(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto wanted = reinterpret_cast<std::uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    if (std::stoull(line.substr(0, line.find('-')), nullptr, 16) == wanted) return line;
  }
  return "";
}

std::uintptr_t entry_end(const std::string& line) {
  const auto dash = line.find('-');
  return std::stoull(line.substr(dash + 1, line.find(' ') - dash - 1), nullptr, 16);
}

TEST(huge_page_buffer, maps_an_aligned_isolated_region) {
  huge_page_buffer buffer{3 * mib, with_thp("madvise")};
  const auto start = reinterpret_cast<std::uintptr_t>(buffer.data());
  EXPECT_EQ(start % huge_page_buffer::huge_page_size, 0u);
  EXPECT_EQ(buffer.size(), 4 * mib) << "rounded up to 2 MiB";
  const std::string own = maps_entry_at(buffer.data());
  ASSERT_FALSE(own.empty());
  EXPECT_EQ(entry_end(own), start + buffer.size()) << "its own mapping: " << own;
  EXPECT_TRUE(contains(own, " rw-p ")) << own;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::string guard_before = maps_entry_at(reinterpret_cast<void*>(start - page));
  const std::string guard_after = maps_entry_at(reinterpret_cast<void*>(start + buffer.size()));
  EXPECT_TRUE(contains(guard_before, " ---p ")) << guard_before;
  EXPECT_TRUE(contains(guard_after, " ---p ")) << guard_after;
  EXPECT_EQ((huge_page_buffer{1, with_thp("madvise")}.size()), 2 * mib);
  EXPECT_EQ((huge_page_buffer{2 * mib, with_thp("madvise")}.size()), 2 * mib);
}

TEST(huge_page_buffer, rejects_bad_sizes) {
  EXPECT_THROW(huge_page_buffer{0}, std::invalid_argument);
  EXPECT_THROW(huge_page_buffer{SIZE_MAX}, std::bad_alloc);
  EXPECT_THROW(huge_page_buffer{SIZE_MAX / 2 - mib}, std::bad_alloc) << "the kernel refuses";
}

TEST(huge_page_buffer, falls_back_visibly_when_thp_is_never_or_missing) {
  for (const char* fixture : {"never", "missing", "no_choice"}) {
    SCOPED_TRACE(fixture);
    huge_page_buffer buffer{4 * mib, with_thp(fixture)};
    EXPECT_FALSE(buffer.advised());
    EXPECT_TRUE(contains(buffer.fallback_reason(), thp_fixtures + fixture))
        << buffer.fallback_reason();
    EXPECT_TRUE(contains(buffer.fallback_reason(), "plain pages"));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % huge_page_buffer::huge_page_size,
              0u);
    std::memset(buffer.data(), 0xab, buffer.size());  // still ordinary, usable memory
  }
  EXPECT_EQ(huge_page_buffer(2 * mib, with_thp("never")).mode(), thp_mode::never);
  EXPECT_EQ(huge_page_buffer(2 * mib, with_thp("missing")).mode(), thp_mode::unavailable);
  huge_page_buffer advised{2 * mib, with_thp("madvise")};
  if (advised.advised()) {
    EXPECT_EQ(advised.fallback_reason(), "");
  } else {  // a kernel without THP refuses MADV_HUGEPAGE: the reason must say so
    EXPECT_TRUE(contains(advised.fallback_reason(), "madvise(MADV_HUGEPAGE) failed"));
  }
}

TEST(huge_page_buffer, counts_only_entries_inside_the_buffer) {
  const std::filesystem::path smaps =
      std::filesystem::temp_directory_path() / ("alloclab_smaps_" + std::to_string(::getpid()));
  huge_page_options options = with_thp("madvise");
  options.smaps_path = smaps.string();
  huge_page_buffer buffer{4 * mib, options};
  const auto start = reinterpret_cast<std::uintptr_t>(buffer.data());
  const auto hex = [](std::uintptr_t value) {
    std::ostringstream out;
    out << std::hex << value;
    return out.str();
  };
  std::ofstream(smaps)
      << hex(start - 4096) << "-" << hex(start) << " ---p 00000000 00:00 0\n"
      << "Rss:                   4 kB\nAnonHugePages:      2048 kB\n"
      // The buffer split in two entries (as mprotect of part of it would do).
      << hex(start) << "-" << hex(start + 2 * mib) << " rw-p 00000000 00:00 0\n"
      << "Size:               2048 kB\nRss:                2048 kB\nAnonHugePages:      2048 kB\n"
      << "VmFlags: rd wr mr mw me ac hg\n"
      << hex(start + 2 * mib) << "-" << hex(start + 4 * mib) << " rw-p 00000000 00:00 0\n"
      << "Rss:                 100 kB\nAnonHugePages:         0 kB\n"
      // A neighbour that overlaps the end is not ours.
      << hex(start + 3 * mib) << "-" << hex(start + 6 * mib) << " rw-p 00000000 00:00 0\n"
      << "Rss:                4096 kB\nAnonHugePages:      4096 kB\n";
  EXPECT_EQ(buffer.huge_backed_bytes(), 2 * mib);
  EXPECT_EQ(buffer.resident_bytes(), (2048u + 100u) * 1024u);
  std::filesystem::remove(smaps);
}

TEST(huge_page_buffer, smaps_unreadable_is_nullopt) {
  huge_page_options options = with_thp("madvise");
  options.smaps_path = thp_fixtures + "missing";
  huge_page_buffer buffer{2 * mib, options};
  EXPECT_EQ(buffer.huge_backed_bytes(), std::nullopt);
  EXPECT_EQ(buffer.resident_bytes(), std::nullopt);
}

std::uint64_t vmstat(const std::string& name) {
  std::ifstream in("/proc/vmstat");
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value)
    if (key == name) return value;
  return 0;
}

TEST(huge_page_buffer, live_kernel_backs_an_advised_buffer_with_huge_pages) {
  const thp_mode live = alloclab::read_thp_mode();
  if (live == thp_mode::never || live == thp_mode::unavailable)
    GTEST_SKIP() << "THP is " << alloclab::to_string(live) << " on this machine";
  huge_page_buffer buffer{16 * mib};
  ASSERT_TRUE(buffer.advised()) << buffer.fallback_reason();
  EXPECT_EQ(buffer.mode(), live);
  EXPECT_EQ(buffer.huge_backed_bytes(), 0u) << "nothing touched yet";
  const std::uint64_t fallbacks_before = vmstat("thp_fault_fallback");
  buffer.populate();
  const std::uint64_t fallbacks = vmstat("thp_fault_fallback") - fallbacks_before;
  const std::optional<std::size_t> huge = buffer.huge_backed_bytes();
  ASSERT_TRUE(huge.has_value());
  std::printf("live: THP %s, %zu of %zu bytes on huge pages, %llu fault fallbacks\n",
              alloclab::to_string(live), *huge, buffer.size(),
              static_cast<unsigned long long>(fallbacks));
  EXPECT_EQ(buffer.resident_bytes(), buffer.size()) << "populate() touched every page";
  EXPECT_EQ(*huge % huge_page_buffer::huge_page_size, 0u);
  EXPECT_LE(*huge, buffer.size());
  if (*huge == 0 && fallbacks > 0)
    GTEST_SKIP() << "the kernel tried and fell back " << fallbacks
                 << " times (fragmented memory): no huge page available now";
  EXPECT_GT(*huge, 0u) << "an aligned, advised, touched region got no huge page";
}

TEST(huge_page_buffer, live_fallback_gets_no_huge_pages) {
  if (alloclab::read_thp_mode() == thp_mode::always)
    GTEST_SKIP() << "THP is 'always' here: the kernel backs even unadvised memory";
  huge_page_buffer buffer{8 * mib, with_thp("never")};
  ASSERT_FALSE(buffer.advised());
  buffer.populate();
  EXPECT_EQ(buffer.huge_backed_bytes(), 0u) << "not advised, so no huge pages under 'madvise'";
  EXPECT_EQ(buffer.resident_bytes(), buffer.size());
}

TEST(huge_page_buffer, moves_ownership) {
  huge_page_buffer first{2 * mib, with_thp("never")};
  void* const data = first.data();
  const std::string reason = first.fallback_reason();
  huge_page_buffer second{std::move(first)};
  EXPECT_EQ(second.data(), data);
  EXPECT_EQ(second.size(), 2 * mib);
  EXPECT_EQ(second.fallback_reason(), reason);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(first.size(), 0u);
  huge_page_buffer third{4 * mib, with_thp("madvise")};
  third = std::move(second);
  EXPECT_EQ(third.data(), data);
  EXPECT_EQ(third.size(), 2 * mib);
  EXPECT_TRUE(maps_entry_at(data).size() > 0) << "still mapped after the moves";
}

TEST(huge_page_buffer, serves_as_an_arena_buffer) {
  huge_page_buffer buffer{4 * mib};
  alloclab::arena_resource arena{buffer.data(), buffer.size(), std::pmr::null_memory_resource()};
  std::pmr::vector<std::uint64_t> table{&arena};
  table.reserve(buffer.size() / sizeof(std::uint64_t));
  table.resize(table.capacity(), 7);
  EXPECT_EQ(static_cast<void*>(table.data()), buffer.data());
  EXPECT_EQ(arena.used(), buffer.size());
  EXPECT_EQ(arena.upstream_allocations(), 0u);
  EXPECT_THROW((void)arena.allocate(1, 1), std::bad_alloc) << "null upstream: no silent growth";
  EXPECT_EQ(arena.overflows(), 1u);
}

}  // namespace
