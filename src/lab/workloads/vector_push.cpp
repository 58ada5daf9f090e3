#include "sensor_vector.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct vector_push {
  static constexpr const char* name = "vector_push";
  static constexpr const char* description =
      "seed 000: push_back 1000 x 64-byte SensorData into a vector, no reserve (geometric growth)";
  using input = sensor_batch_input;
  static input make_input(std::uint64_t seed) { return make_sensor_batch(seed, 1000); }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    return push_sensor_batch(policy, in, false);
  }
};

LAB_REGISTER_WORKLOAD(vector_push);

}  // namespace
}  // namespace alloclab::lab
