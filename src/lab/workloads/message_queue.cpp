#include <vector>

#include "common.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// Seed 000's mixed workload: a producer/consumer queue of messages with variable payloads.
struct message_queue {
  static constexpr const char* name = "message_queue";
  static constexpr const char* description =
      "seed 000: 1000 mixed produce/consume steps on a deque of messages with 8-200 byte string "
      "payloads";
  struct step {
    bool produce;
    std::uint32_t payload_size;
  };
  struct input {
    std::vector<step> steps;
  };
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    for (int i = 0; i < 1000; ++i) {
      bool produce = rng.between(0, 99) < 60;  // the queue grows on average, then drains at the end
      in.steps.push_back(step{produce, static_cast<std::uint32_t>(rng.between(8, 200))});
    }
    return in;
  }

  template <class Policy>
  struct message {
    std::uint32_t id;
    typename containers<Policy>::string payload;
  };

  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto queue = policy.template make_deque<message<Policy>>();
    std::uint64_t acc = 0;
    std::uint32_t next_id = 0;
    auto consume = [&] {
      acc = mix_bytes(mix(acc, queue.front().id), queue.front().payload);
      queue.pop_front();
    };
    for (const step& s : in.steps) {
      if (s.produce) {
        auto payload = policy.make_string();
        payload.assign(s.payload_size, static_cast<char>('a' + next_id % 26));
        queue.push_back(message<Policy>{next_id++, std::move(payload)});
      } else if (!queue.empty()) {
        consume();
      }
    }
    while (!queue.empty()) consume();
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(message_queue);

}  // namespace
}  // namespace alloclab::lab
