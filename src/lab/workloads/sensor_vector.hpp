// Shared body of the two vector_push workloads (seed 000, benchmark 1).
#pragma once

#include <vector>

#include "common.hpp"
#include "policy.hpp"

namespace alloclab::lab {

struct sensor_batch_input {
  std::vector<SensorData> readings;  // read-only source data, built outside the timed region
};

inline sensor_batch_input make_sensor_batch(std::uint64_t seed, int count) {
  seeded_rng rng(seed);
  sensor_batch_input in;
  in.readings.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) in.readings.push_back(make_sensor(rng, i));
  return in;
}

template <class Policy>
std::uint64_t push_sensor_batch(const Policy& policy, const sensor_batch_input& in, bool reserve) {
  auto readings = policy.template make_vector<SensorData>();
  if (reserve) readings.reserve(in.readings.size());
  for (const SensorData& s : in.readings) readings.push_back(s);
  std::uint64_t acc = readings.size();
  for (const SensorData& s : readings) acc = mix(acc, checksum_of(s));
  return acc;
}

}  // namespace alloclab::lab
