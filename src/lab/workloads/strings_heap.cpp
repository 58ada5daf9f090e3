#include "label_strings.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct strings_heap {
  static constexpr const char* name = "strings_heap";
  static constexpr const char* description =
      "seed 000: 100 long sensor labels (24-48 chars, one heap block each) into a vector<string>";
  using input = label_input;
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    const char* kinds[] = {"Temperature_Sensor_", "Pressure_Transducer_", "Humidity_Probe_",
                           "Flow_Meter_"};
    for (int i = 0; i < 100; ++i) {
      std::string label = kinds[rng.between(0, 3)];
      append_number(label, static_cast<std::uint64_t>(i));
      label += "_building_";
      label.append(rng.between(5, 16), static_cast<char>('a' + rng.between(0, 25)));
      in.labels.push_back(label);
    }
    return in;
  }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    return copy_labels(policy, in);
  }
};

LAB_REGISTER_WORKLOAD(strings_heap);

}  // namespace
}  // namespace alloclab::lab
