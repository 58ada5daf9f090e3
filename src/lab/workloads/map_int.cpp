#include "device.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct map_int {
  static constexpr const char* name = "map_int";
  static constexpr const char* description =
      "seed 000: insert 500 device records into a map<int, Device>";
  using input = device_input;
  static input make_input(std::uint64_t seed) { return make_devices(seed, 500); }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto devices = policy.template make_map<int, Device>();
    for (const Device& d : in.devices) devices.emplace(d.id, d);
    std::uint64_t acc = devices.size();
    for (const auto& [id, d] : devices) acc = mix(acc, checksum_of(d));
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(map_int);

}  // namespace
}  // namespace alloclab::lab
