#include <cstddef>
#include <cstdint>
#include <vector>

#include "request_mix.hpp"
#include "second_thread.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// Seed 004's request mix on two threads at once, each serving requests of its own on one shared
// allocator: the calling thread serves the first half, a second thread the other half.
struct request_mix_mt {
  static constexpr const char* name = "request_mix_mt";
  static constexpr const char* description =
      "2 threads at once, each serving 48 request_mix requests of its own (tokens, header map, "
      "ints, response) on the one shared allocator";
  static constexpr std::size_t threads = 2;
  static constexpr std::size_t requests_per_thread = 48;
  struct input {
    std::vector<request_mix::input> requests[threads];
  };
  static input make_input(std::uint64_t seed) {
    input in;
    seeded_rng seeds(seed);
    for (auto& list : in.requests)
      for (std::size_t i = 0; i < requests_per_thread; ++i)
        list.push_back(request_mix::make_input(seeds.next()));
    return in;
  }

  template <class Policy>
  static std::uint64_t serve(const Policy& policy, const std::vector<request_mix::input>& list) {
    std::uint64_t acc = 0;
    for (const auto& request : list) acc = mix(acc, request_mix::run(policy, request));
    return acc;
  }

  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    std::uint64_t first = 0, second = 0;
    auto helper = [&] { second = serve(policy, in.requests[1]); };
    run_beside(helper, [&] { first = serve(policy, in.requests[0]); });
    return mix(first, second);
  }
};

LAB_REGISTER_WORKLOAD(request_mix_mt);

}  // namespace
}  // namespace alloclab::lab
