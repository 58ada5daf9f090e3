#include <string>
#include <vector>

#include "common.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// Seed 000's "string concatenation": a status document grown line by line, each line
// assembled in a temporary string first (so both growth and short-lived blocks occur).
struct string_concat {
  static constexpr const char* name = "string_concat";
  static constexpr const char* description =
      "seed 000: build a 100-line status report by appending temporary line strings to a growing "
      "one";
  struct input {
    std::vector<std::string> labels;
    std::vector<std::uint64_t> values;
  };
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    for (int i = 0; i < 100; ++i) {
      std::string label = "channel_";
      append_number(label, static_cast<std::uint64_t>(i));
      label.append(rng.between(0, 12), 'x');
      in.labels.push_back(label);
      in.values.push_back(rng.between(0, 1'000'000));
    }
    return in;
  }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto report = policy.make_string("status report\n");
    for (std::size_t i = 0; i < in.labels.size(); ++i) {
      auto line = policy.make_string(in.labels[i]);
      line.append(" = ");
      append_number(line, in.values[i]);
      line.append(" units; ok\n");
      report.append(line);
    }
    return mix_bytes(0, report);
  }
};

LAB_REGISTER_WORKLOAD(string_concat);

}  // namespace
}  // namespace alloclab::lab
