#include "workloads/size_distribution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

using namespace alloclab::heap;

namespace {

std::uint32_t median(std::vector<std::uint32_t> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

TEST(SizeDistribution, NamesRoundTrip) {
  for (size_dist d : all_size_dists()) {
    const auto parsed = parse_size_dist(to_string(d));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_FALSE(parse_size_dist("normal").has_value());
  EXPECT_FALSE(parse_size_dist("").has_value());
}

TEST(SizeDistribution, StaysInsideTheSeedRange) {
  for (size_dist d : all_size_dists()) {
    const auto sizes = make_sizes(d, 200'000, 42);
    ASSERT_EQ(sizes.size(), 200'000u);
    const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
    EXPECT_GE(*lo, min_block_size) << to_string(d);
    EXPECT_LE(*hi, max_block_size) << to_string(d);
  }
  EXPECT_EQ(min_block_size, 4u);
  EXPECT_EQ(max_block_size, 0x7FFFFu);
}

TEST(SizeDistribution, ClipsExtremeParametersToTheRange) {
  size_dist_params huge;
  huge.exponential_mean = 1e12;  // almost everything above the maximum
  const auto big = make_sizes(size_dist::exponential, 1000, 1, huge);
  EXPECT_TRUE(
      std::all_of(big.begin(), big.end(), [](std::uint32_t s) { return s == max_block_size; }));
  size_dist_params tiny;
  tiny.exponential_mean = 1e-3;  // almost everything below the minimum
  const auto small = make_sizes(size_dist::exponential, 1000, 1, tiny);
  EXPECT_TRUE(
      std::all_of(small.begin(), small.end(), [](std::uint32_t s) { return s == min_block_size; }));
}

TEST(SizeDistribution, DeterministicForASeed) {
  for (size_dist d : all_size_dists()) {
    EXPECT_EQ(make_sizes(d, 10'000, 7), make_sizes(d, 10'000, 7)) << to_string(d);
    EXPECT_NE(make_sizes(d, 10'000, 7), make_sizes(d, 10'000, 8)) << to_string(d);
  }
  // A prefix does not depend on how many sizes are asked for.
  const auto a = make_sizes(size_dist::lognormal, 100, 3);
  const auto b = make_sizes(size_dist::lognormal, 1000, 3);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
}

TEST(SizeDistribution, LognormalModeIsNear64Bytes) {
  const auto sizes = make_sizes(size_dist::lognormal, 1'000'000, 11);
  // Histogram in 16-byte bins over [0, 1024): the fullest bin must sit near 64 B.
  std::vector<std::size_t> bins(64, 0);
  for (std::uint32_t s : sizes) {
    if (s < 1024) ++bins[s / 16];
  }
  const auto fullest =
      static_cast<std::size_t>(std::max_element(bins.begin(), bins.end()) - bins.begin());
  const std::size_t centre = fullest * 16 + 8;
  EXPECT_GE(centre, 32u);
  EXPECT_LE(centre, 128u);
  // ... with a long tail: the median is well above the mode, the 99th percentile above 8 KiB.
  auto sorted = sizes;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(sorted[sorted.size() / 2], 256u);
  EXPECT_GT(sorted[sorted.size() * 99 / 100], 8192u);
}

TEST(SizeDistribution, ExponentialFavoursSmallSizes) {
  const auto uni = make_sizes(size_dist::uniform, 200'000, 5);
  const auto expo = make_sizes(size_dist::exponential, 200'000, 5);
  const auto logn = make_sizes(size_dist::lognormal, 200'000, 5);
  const std::uint32_t mu = median(uni);
  const std::uint32_t me = median(expo);
  // Uniform median is ~262 KiB; exponential (mean 8 KiB) ~5.7 KiB.
  EXPECT_NEAR(static_cast<double>(mu), (min_block_size + max_block_size) / 2.0, 4000.0);
  EXPECT_LT(me * 10u, mu);
  EXPECT_LT(median(logn), me);
  // Exponential density decreases: more sizes in [4, 4 KiB) than in [4 KiB, 8 KiB).
  const auto below =
      std::count_if(expo.begin(), expo.end(), [](std::uint32_t s) { return s < 4096; });
  const auto next = std::count_if(expo.begin(), expo.end(),
                                  [](std::uint32_t s) { return s >= 4096 && s < 8192; });
  EXPECT_GT(below, next);
}

TEST(SizeDistribution, RejectsNonsenseParameters) {
  size_dist_params p;
  p.exponential_mean = 0;
  EXPECT_THROW(make_sizes(size_dist::exponential, 10, 1, p), std::invalid_argument);
  size_dist_params q;
  q.lognormal_sigma = -1;
  EXPECT_THROW(make_sizes(size_dist::lognormal, 10, 1, q), std::invalid_argument);
}
