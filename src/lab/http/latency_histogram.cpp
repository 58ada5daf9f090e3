#include "http/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace alloclab::lab::http {

std::uint32_t latency_histogram::bucket_of(std::uint64_t ns) noexcept {
  if (ns <= 1) return 0;
  const double index = std::floor(std::log2(static_cast<double>(ns)) * buckets_per_octave);
  return static_cast<std::uint32_t>(std::min(index, static_cast<double>(bucket_count - 1)));
}

double latency_histogram::bucket_middle_ns(std::uint32_t bucket) noexcept {
  return std::exp2((static_cast<double>(bucket) + 0.5) / buckets_per_octave);
}

void latency_histogram::record(std::uint64_t ns) noexcept {
  buckets_[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(ns, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

histogram_snapshot latency_histogram::snapshot() const {
  histogram_snapshot s;
  for (std::uint32_t i = 0; i < bucket_count; ++i) {
    const std::uint64_t n = buckets_[i].load(std::memory_order_relaxed);
    if (n != 0) {
      s.buckets[i] = n;
      s.count += n;  // consistent with the buckets even while requests are being recorded
    }
  }
  s.sum_ns = sum_ns_.load(std::memory_order_relaxed);
  return s;
}

double histogram_snapshot::mean_ns() const {
  return count == 0 ? 0.0 : static_cast<double>(sum_ns) / static_cast<double>(count);
}

double histogram_snapshot::percentile_ns(double q) const {
  if (count == 0) return 0.0;
  const double rank = std::max(1.0, std::ceil(q * static_cast<double>(count)));
  std::uint64_t seen = 0;
  for (const auto& [bucket, n] : buckets) {
    seen += n;
    if (static_cast<double>(seen) >= rank) return latency_histogram::bucket_middle_ns(bucket);
  }
  return latency_histogram::bucket_middle_ns(buckets.rbegin()->first);
}

histogram_snapshot histogram_snapshot::since(const histogram_snapshot& earlier) const {
  histogram_snapshot d;
  d.sum_ns = sum_ns - std::min(sum_ns, earlier.sum_ns);
  for (const auto& [bucket, n] : buckets) {
    const auto it = earlier.buckets.find(bucket);
    const std::uint64_t before = it == earlier.buckets.end() ? 0 : std::min(n, it->second);
    if (n > before) {
      d.buckets[bucket] = n - before;
      d.count += n - before;
    }
  }
  return d;
}

histogram_counts counts_of(const histogram_snapshot& s) {
  histogram_counts out;
  out.count = s.count;
  out.sum_ns = s.sum_ns;
  out.buckets_per_octave = latency_histogram::buckets_per_octave;
  for (const auto& [bucket, n] : s.buckets) out.buckets.push_back({bucket, n});
  return out;
}

histogram_snapshot snapshot_of(const histogram_counts& c) {
  histogram_snapshot s;
  s.count = c.count;
  s.sum_ns = c.sum_ns;
  for (const std::vector<std::uint64_t>& pair : c.buckets) {
    if (pair.size() != 2 || pair[0] >= latency_histogram::bucket_count)
      throw model::model_error("/buckets: expected [bucket index, count] pairs");
    s.buckets[static_cast<std::uint32_t>(pair[0])] = pair[1];
  }
  return s;
}

}  // namespace alloclab::lab::http
