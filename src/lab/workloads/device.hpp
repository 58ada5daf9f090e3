// Device records for the map workloads (seed 000, benchmark 3: 500 device records).
#pragma once

#include <string>
#include <vector>

#include "common.hpp"
#include "policy.hpp"

namespace alloclab::lab {

struct Device {
  int id;
  std::uint32_t status;
  double temperature;
  double uptime_hours;
};

struct device_input {
  std::vector<Device> devices;     // in insertion order (shuffled ids)
  std::vector<std::string> names;  // one name per device, 17-24 chars (heap-sized strings)
};

inline device_input make_devices(std::uint64_t seed, int count) {
  seeded_rng rng(seed);
  device_input in;
  std::vector<int> ids(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ids[static_cast<std::size_t>(i)] = i * 7 + 1;
  for (std::size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[rng.between(0, i - 1)]);
  for (int id : ids) {
    in.devices.push_back(Device{id, static_cast<std::uint32_t>(rng.between(0, 3)),
                                20.0 + rng.unit() * 60.0, rng.unit() * 10'000.0});
    std::string name = "device-";
    append_number(name, static_cast<std::uint64_t>(id));
    name += "-rack-";
    name.append(rng.between(4, 8), static_cast<char>('a' + rng.between(0, 25)));
    in.names.push_back(name);
  }
  return in;
}

inline std::uint64_t checksum_of(const Device& d) {
  return mix(mix(static_cast<std::uint64_t>(d.id), d.status), bits_of(d.temperature));
}

}  // namespace alloclab::lab
