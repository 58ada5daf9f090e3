// Allocation-size distributions for the heap study (seed 003).
//
// Sizes are drawn from a seeded std::mt19937_64 and precomputed into a vector before any timed
// region starts. The engine is fully specified by the standard, but the *distributions*
// (uniform_int, exponential, lognormal) are not: their algorithms are implementation-defined.
// A given seed therefore reproduces the same sizes across runs and machines with libstdc++ (the
// only standard library this project builds with), not across standard libraries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace alloclab::heap {

/// The seed-003 range: 4 (0x00004) .. 524287 (0x7FFFF) bytes, inclusive.
inline constexpr std::uint32_t min_block_size = 0x4;
inline constexpr std::uint32_t max_block_size = 0x7FFFF;

enum class size_dist {
  uniform,      ///< every size in the range equally likely
  exponential,  ///< smaller sizes more likely (exponential over bytes)
  lognormal,    ///< a peak near 64 B, a head of small sizes and a long tail
};

/// Shape parameters. The defaults are what the lab uses; changing them changes the study.
struct size_dist_params {
  /// Exponential: mean in bytes (before clipping). Median = mean * ln 2.
  double exponential_mean = 8192.0;
  /// Log-normal: the mode (most likely size, in bytes) and sigma of ln(size).
  /// mu is derived as ln(mode) + sigma^2, so the density peaks at `lognormal_mode`.
  double lognormal_mode = 64.0;
  double lognormal_sigma = 1.5;
};

std::string_view to_string(size_dist d) noexcept;
std::optional<size_dist> parse_size_dist(std::string_view name) noexcept;
/// All distributions, in report order.
const std::vector<size_dist>& all_size_dists();

/// `count` sizes from `dist`, clipped to [min_block_size, max_block_size].
/// Deterministic for (dist, count, seed, params) with libstdc++.
std::vector<std::uint32_t> make_sizes(size_dist dist, std::size_t count, std::uint64_t seed,
                                      const size_dist_params& params = {});

}  // namespace alloclab::heap
