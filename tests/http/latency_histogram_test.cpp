// Test plan: http::latency_histogram and histogram_snapshot (latency_histogram.hpp).
//   bucket_of / bucket_middle_ns: every value within 2.2 % of its bucket's middle
//                                          ... LatencyHistogram.BucketsAreWithinTheirPrecision
//   record, snapshot, mean_ns, percentile_ns against exact values
//                                          ... LatencyHistogram.PercentilesMatchTheExactOnes
//   since: only what was recorded in between ... LatencyHistogram.SinceIsTheRunsOwnDelta
//   counts_of / snapshot_of through JSON ..... LatencyHistogram.JsonRoundTrip
//   a bucket that is not a pair is refused .. LatencyHistogram.MalformedBucketsAreRefused
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "http/latency_histogram.hpp"

namespace {

using alloclab::lab::http::histogram_counts;
using alloclab::lab::http::latency_histogram;
namespace model = alloclab::lab::model;

TEST(LatencyHistogram, BucketsAreWithinTheirPrecision) {
  for (std::uint64_t v = 2; v < (std::uint64_t{1} << 40); v = v * 3 / 2 + 1) {
    const double middle = latency_histogram::bucket_middle_ns(latency_histogram::bucket_of(v));
    EXPECT_LE(std::abs(middle - static_cast<double>(v)) / static_cast<double>(v), 0.022) << v;
  }
  EXPECT_EQ(latency_histogram::bucket_of(0), 0u);
  EXPECT_EQ(latency_histogram::bucket_of(~std::uint64_t{0}), latency_histogram::bucket_count - 1);
}

TEST(LatencyHistogram, PercentilesMatchTheExactOnes) {
  latency_histogram h;
  std::vector<double> values;
  std::mt19937_64 random(5);
  std::lognormal_distribution<double> dist(9.0, 1.0);  // around 8 us
  std::uint64_t sum = 0;
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<std::uint64_t>(dist(random)) + 1;
    h.record(v);
    values.push_back(static_cast<double>(v));
    sum += v;
  }
  std::sort(values.begin(), values.end());
  const auto s = h.snapshot();
  EXPECT_EQ(s.count, 20000u);
  EXPECT_EQ(s.sum_ns, sum);
  EXPECT_DOUBLE_EQ(s.mean_ns(), static_cast<double>(sum) / 20000.0);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = values[static_cast<std::size_t>(std::ceil(q * 20000)) - 1];
    EXPECT_NEAR(s.percentile_ns(q), exact, exact * 0.05) << q;
  }
  EXPECT_EQ(latency_histogram().snapshot().percentile_ns(0.5), 0.0);
}

TEST(LatencyHistogram, SinceIsTheRunsOwnDelta) {
  latency_histogram h;
  for (int i = 0; i < 1000; ++i) h.record(1'000'000);  // before the run: 1 ms each
  const auto before = h.snapshot();
  for (int i = 0; i < 100; ++i) h.record(1000);  // the run: 1 us each
  const auto delta = h.snapshot().since(before);
  EXPECT_EQ(delta.count, 100u);
  EXPECT_EQ(delta.sum_ns, 100'000u);
  EXPECT_NEAR(delta.percentile_ns(0.99), 1000, 22);
}

TEST(LatencyHistogram, JsonRoundTrip) {
  latency_histogram h;
  for (std::uint64_t v : {5u, 50u, 500u, 500u}) h.record(v);
  const auto s = h.snapshot();
  const nlohmann::json j = model::write_json(counts_of(s));
  EXPECT_EQ(j.at("buckets_per_octave"), latency_histogram::buckets_per_octave);
  EXPECT_EQ(j.at("buckets").at(0), nlohmann::json::array({latency_histogram::bucket_of(5), 1}));
  const auto back = snapshot_of(model::read_json<histogram_counts>(j));
  EXPECT_EQ(back.count, s.count);
  EXPECT_EQ(back.sum_ns, s.sum_ns);
  EXPECT_EQ(back.buckets, s.buckets);
}

TEST(LatencyHistogram, MalformedBucketsAreRefused) {
  histogram_counts c;
  c.buckets = {{3}};
  EXPECT_THROW(snapshot_of(c), model::model_error);
  c.buckets = {{latency_histogram::bucket_count, 1}};
  EXPECT_THROW(snapshot_of(c), model::model_error);
}

}  // namespace
