#include "sensor_vector.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct vector_push_reserve {
  static constexpr const char* name = "vector_push_reserve";
  static constexpr const char* description =
      "seed 000 errata: the same 1000 SensorData pushes after reserve(1000): one allocation";
  using input = sensor_batch_input;
  static input make_input(std::uint64_t seed) { return make_sensor_batch(seed, 1000); }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    return push_sensor_batch(policy, in, true);
  }
};

LAB_REGISTER_WORKLOAD(vector_push_reserve);

}  // namespace
}  // namespace alloclab::lab
