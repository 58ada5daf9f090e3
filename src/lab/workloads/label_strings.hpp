// Shared body of strings_sso / strings_heap (seed 000, benchmark 2): 100 sensor labels
// copied into a vector of strings.
#pragma once

#include <string>
#include <vector>

#include "common.hpp"
#include "policy.hpp"

namespace alloclab::lab {

struct label_input {
  std::vector<std::string> labels;
};

template <class Policy>
std::uint64_t copy_labels(const Policy& policy, const label_input& in) {
  auto names = policy.template make_vector<typename containers<Policy>::string>();
  for (const std::string& label : in.labels) names.push_back(policy.make_string(label));
  std::uint64_t acc = names.size();
  for (const auto& s : names) acc = mix_bytes(acc, s);
  return acc;
}

}  // namespace alloclab::lab
