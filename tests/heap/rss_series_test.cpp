// Test plan for process/rss_series.hpp:
// | member | test |
// |---|---|
// | read_statm_rss() | RssSeries.ReadsTheSecondStatmField, RssSeries.MalformedStatmIsEmpty |
// | rss_sampler start/stop/series, cgroup file | RssSeries.SamplesUntilStoppedAndKeepsTimeOrder |
// | rss_sampler thinning when full | RssSeries.ThinsOutWhenFullAndDoublesThePeriod |
// | unreadable cgroup file | RssSeries.AnUnreadableCgroupFileIsLeftOut |
#include "process/rss_series.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

using namespace alloclab::process;

namespace {

std::string temp_file(const std::string& text) {
  char name[] = "/tmp/rss_series_testXXXXXX";
  const int fd = ::mkstemp(name);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(name) << text;
  return name;
}

std::optional<std::uint64_t> statm_of(const std::string& text) {
  const std::string path = temp_file(text);
  const int fd = ::open(path.c_str(), O_RDONLY);
  const auto rss = read_statm_rss(fd);
  ::close(fd);
  std::remove(path.c_str());
  return rss;
}

TEST(RssSeries, ReadsTheSecondStatmField) {
  EXPECT_EQ(statm_of("1000 25 3 4 0 5 0\n"),
            25u * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
}

TEST(RssSeries, MalformedStatmIsEmpty) {
  EXPECT_EQ(statm_of("1000\n"), std::nullopt);
  EXPECT_EQ(statm_of("1000 x\n"), std::nullopt);
  EXPECT_EQ(statm_of(""), std::nullopt);
  EXPECT_EQ(read_statm_rss(-1), std::nullopt);
}

TEST(RssSeries, SamplesUntilStoppedAndKeepsTimeOrder) {
  const std::string cgroup = temp_file("123456\n");
  rss_sampler sampler(std::chrono::milliseconds(1), 1000, cgroup);
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  sampler.stop();
  const rss_series s = sampler.series();
  std::remove(cgroup.c_str());
  EXPECT_EQ(s.cgroup_file, cgroup);
  ASSERT_GE(s.points.size(), 2u) << "one at start, one at stop";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    EXPECT_GT(s.points[i].rss_bytes, 0u);
    EXPECT_EQ(s.points[i].cgroup_bytes, 123456);
    if (i > 0) {
      EXPECT_LE(s.points[i - 1].t_ms, s.points[i].t_ms);
    }
  }
}

TEST(RssSeries, ThinsOutWhenFullAndDoublesThePeriod) {
  rss_sampler sampler(std::chrono::milliseconds(1), 4, "");
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  sampler.stop();
  const rss_series s = sampler.series();
  EXPECT_LE(s.points.size(), 4u);
  EXPECT_GE(s.period_ms, 2.0) << "at least one thinning";
  EXPECT_TRUE(s.cgroup_file.empty());
  for (const rss_point& p : s.points) EXPECT_EQ(p.cgroup_bytes, -1);
}

TEST(RssSeries, AnUnreadableCgroupFileIsLeftOut) {
  const std::string malformed = temp_file("max\n");
  rss_sampler sampler(std::chrono::milliseconds(5), 10, malformed);
  rss_sampler missing(std::chrono::milliseconds(5), 10, "/nonexistent/memory.current");
  std::remove(malformed.c_str());
  EXPECT_TRUE(sampler.series().cgroup_file.empty());
  EXPECT_TRUE(missing.series().cgroup_file.empty());
}

}  // namespace
