#include "label_strings.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct strings_sso {
  static constexpr const char* name = "strings_sso";
  static constexpr const char* description =
      "seed 000: 100 short sensor labels (<= 15 chars, small-string optimised) into a "
      "vector<string>";
  using input = label_input;
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    const char* kinds[] = {"Temp", "Press", "Humid", "Flow"};
    for (int i = 0; i < 100; ++i) {
      std::string label = kinds[rng.between(0, 3)];
      label += '_';
      append_number(label, static_cast<std::uint64_t>(i));
      in.labels.push_back(label);  // at most 9 chars: always inside the SSO buffer
    }
    return in;
  }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    return copy_labels(policy, in);
  }
};

LAB_REGISTER_WORKLOAD(strings_sso);

}  // namespace
}  // namespace alloclab::lab
