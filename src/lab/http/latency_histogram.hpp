// A fixed-size, lock-free histogram of durations: the server records the time each request
// spends inside the workload, and a client turns two snapshots into a delta (mean, percentiles)
// over exactly the requests of its own load run. Buckets are 2^(1/16) wide (values are reported
// at the bucket's geometric middle: within 2.2 % of the true value); Debian has no HdrHistogram
// for C/C++.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <vector>

#include "model/fields.hpp"

namespace alloclab::lab::http {

struct histogram_snapshot {
  std::uint64_t count = 0;
  std::uint64_t sum_ns = 0;
  std::map<std::uint32_t, std::uint64_t> buckets;  // bucket index -> count (non-zero only)

  double mean_ns() const;
  // q in [0, 1]; 0 when empty.
  double percentile_ns(double q) const;
  // The requests recorded after `earlier` was taken (earlier must be a snapshot of the same
  // histogram).
  histogram_snapshot since(const histogram_snapshot& earlier) const;
};

// A snapshot as JSON carries it (GET /stats): its non-empty buckets as [index, count] pairs.
struct histogram_counts {
  std::uint64_t count = 0, sum_ns = 0;
  int buckets_per_octave = 0;
  std::vector<std::vector<std::uint64_t>> buckets;
  template <class S, class F>
  static void fields(S& s, F& field) {
    field(s.count, "count", "durations recorded");
    field(s.sum_ns, "sum_ns", "their sum (ns)");
    field(s.buckets_per_octave, "buckets_per_octave", "bucket width: 2^(1/this)");
    field(s.buckets, "buckets", "[bucket index, count] of each non-empty bucket, ascending");
  }
};

histogram_counts counts_of(const histogram_snapshot& s);
// Throws model::model_error when a bucket is not an [index, count] pair.
histogram_snapshot snapshot_of(const histogram_counts& c);

class latency_histogram {
 public:
  static constexpr int buckets_per_octave = 16;
  static constexpr std::size_t bucket_count = 48 * buckets_per_octave;  // up to 2^48 ns

  static std::uint32_t bucket_of(std::uint64_t ns) noexcept;
  static double bucket_middle_ns(std::uint32_t bucket) noexcept;

  void record(std::uint64_t ns) noexcept;
  histogram_snapshot snapshot() const;

 private:
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_ns_{0};
  std::array<std::atomic<std::uint64_t>, bucket_count> buckets_{};
};

}  // namespace alloclab::lab::http
