#include "workloads/size_distribution.hpp"

#include "text/enum_names.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace alloclab::heap {

namespace {

std::uint32_t clip(double x) noexcept {
  // NaN and negative values clip to the minimum; huge values to the maximum.
  if (!(x >= static_cast<double>(min_block_size))) return min_block_size;
  if (x >= static_cast<double>(max_block_size)) return max_block_size;
  return static_cast<std::uint32_t>(std::llround(x));
}

}  // namespace

namespace {
constexpr lab::enum_names<size_dist, 3> size_dist_names{{{size_dist::uniform, "uniform"},
                                                         {size_dist::exponential, "exponential"},
                                                         {size_dist::lognormal, "lognormal"}}};
}  // namespace

std::string_view to_string(size_dist d) noexcept {
  return lab::name_in(size_dist_names, d);
}

std::optional<size_dist> parse_size_dist(std::string_view name) noexcept {
  return lab::value_in(size_dist_names, name);
}

const std::vector<size_dist>& all_size_dists() {
  static const std::vector<size_dist> all = lab::values_in(size_dist_names);
  return all;
}

std::vector<std::uint32_t> make_sizes(size_dist dist, std::size_t count, std::uint64_t seed,
                                      const size_dist_params& params) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> sizes;
  sizes.reserve(count);
  switch (dist) {
    case size_dist::uniform: {
      std::uniform_int_distribution<std::uint32_t> d(min_block_size, max_block_size);
      for (std::size_t i = 0; i < count; ++i) sizes.push_back(d(rng));
      break;
    }
    case size_dist::exponential: {
      if (!(params.exponential_mean > 0.0)) {
        throw std::invalid_argument("exponential_mean must be > 0");
      }
      std::exponential_distribution<double> d(1.0 / params.exponential_mean);
      for (std::size_t i = 0; i < count; ++i) sizes.push_back(clip(d(rng)));
      break;
    }
    case size_dist::lognormal: {
      if (!(params.lognormal_mode > 0.0) || !(params.lognormal_sigma > 0.0)) {
        throw std::invalid_argument("lognormal_mode and lognormal_sigma must be > 0");
      }
      // mode = exp(mu - sigma^2)  =>  mu = ln(mode) + sigma^2
      const double sigma = params.lognormal_sigma;
      const double mu = std::log(params.lognormal_mode) + sigma * sigma;
      std::lognormal_distribution<double> d(mu, sigma);
      for (std::size_t i = 0; i < count; ++i) sizes.push_back(clip(d(rng)));
      break;
    }
  }
  return sizes;
}

}  // namespace alloclab::heap
