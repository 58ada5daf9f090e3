#include "device.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct map_string {
  static constexpr const char* name = "map_string";
  static constexpr const char* description =
      "seed 000: insert 500 device records into a map<string, Device> keyed by 17-24 char names";
  using input = device_input;
  static input make_input(std::uint64_t seed) { return make_devices(seed, 500); }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto devices = policy.template make_map<typename containers<Policy>::string, Device>();
    for (std::size_t i = 0; i < in.devices.size(); ++i)
      devices.emplace(policy.make_string(in.names[i]), in.devices[i]);
    std::uint64_t acc = devices.size();
    for (const auto& [key, d] : devices) acc = mix(mix_bytes(acc, key), checksum_of(d));
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(map_string);

}  // namespace
}  // namespace alloclab::lab
