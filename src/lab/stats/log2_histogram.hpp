// Seed 003's figure: how many requests fall in each power-of-two size band. One convention for
// every producer (workload footprints, heap-study sizes, traces): bucket k counts values in
// [2^k, 2^(k+1)); bucket 0 also counts 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace alloclab::lab {

using log2_histogram = std::array<std::uint64_t, 65>;

inline std::size_t log2_bucket(std::uint64_t value) noexcept {
  return value == 0 ? 0 : static_cast<std::size_t>(63 - __builtin_clzll(value));
}

// The counts up to the last non-empty bucket (empty when all are zero): what results carry.
inline std::vector<std::uint64_t> trimmed_counts(const log2_histogram& h) {
  std::size_t end = h.size();
  while (end > 0 && h[end - 1] == 0) --end;
  return {h.begin(), h.begin() + static_cast<std::ptrdiff_t>(end)};
}

template <class Sizes>
log2_histogram histogram_of(const Sizes& sizes) {
  log2_histogram h{};
  for (const auto s : sizes) ++h[log2_bucket(static_cast<std::uint64_t>(s))];
  return h;
}

}  // namespace alloclab::lab
