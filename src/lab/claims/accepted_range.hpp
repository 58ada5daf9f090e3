// The ratio range a seed claim accepts: its claimed value (or [low, high]) widened by the same
// factor above and below, its tolerance (default 0.2). The schedule tracks a claim's comparison
// against it and results/claim_rules.hpp judges the claim by it.
//
// Example:
//   const auto range = alloclab::lab::claim_rules::accepted({{"claimed", 1.4}, {"tolerance", 0.2}});
//   const bool inside = range.contains(1.5);  // accepts 1.17x to 1.68x
#pragma once

#include <nlohmann/json.hpp>

namespace alloclab::lab::claim_rules {

struct accepted_range {
  double low, high;
  bool contains(double v) const { return v >= low && v <= high; }
};

// The same factor above and below: "1.4x" with tolerance 0.2 accepts 1.17x to 1.68x.
inline accepted_range accepted(const nlohmann::json& claim) {
  const nlohmann::json& claimed = claim.at("claimed");
  const double low = claimed.is_array() ? claimed.at(0).get<double>() : claimed.get<double>();
  const double high = claimed.is_array() ? claimed.at(1).get<double>() : claimed.get<double>();
  const double tolerance = claim.value("tolerance", 0.2);
  return {low / (1 + tolerance), high * (1 + tolerance)};
}

}  // namespace alloclab::lab::claim_rules
