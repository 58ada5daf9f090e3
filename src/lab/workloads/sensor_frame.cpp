#include "device.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// Seed 000's "realistic embedded workload": one acquisition frame holding the readings,
// their labels and a per-device status map, then a small aggregation pass.
struct sensor_frame {
  static constexpr const char* name = "sensor_frame";
  static constexpr const char* description =
      "seed 000: one acquisition frame: 256 readings, 64 heap-sized labels, a 64-entry device map, "
      "aggregation";
  struct input {
    std::vector<SensorData> readings;
    device_input devices;
  };
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    for (int i = 0; i < 256; ++i) in.readings.push_back(make_sensor(rng, i));
    in.devices = make_devices(seed ^ 0x5EEDULL, 64);
    return in;
  }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto readings = policy.template make_vector<SensorData>();
    for (const SensorData& s : in.readings) readings.push_back(s);

    auto labels = policy.template make_vector<typename containers<Policy>::string>();
    for (const std::string& device_name : in.devices.names)
      labels.push_back(policy.make_string(device_name));

    auto status = policy.template make_map<int, Device>();
    for (const Device& d : in.devices.devices) status.emplace(d.id, d);

    double hottest = 0.0;
    for (const SensorData& s : readings)
      hottest = s.temperature > hottest ? s.temperature : hottest;
    std::uint64_t acc = mix(readings.size(), bits_of(hottest));
    for (const auto& label : labels) acc = mix_bytes(acc, label);
    for (const auto& [id, d] : status) acc = mix(acc, checksum_of(d));
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(sensor_frame);

}  // namespace
}  // namespace alloclab::lab
