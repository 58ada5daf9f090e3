#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "common.hpp"
#include "second_thread.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// A bounded single-producer single-consumer queue of values, on the stack: the hand-over itself
// never allocates, so only the messages reach the strategy. A waiting thread sleeps on a condition
// variable rather than spinning: on shared cores a spinning waiter can hold the core its partner
// needs for milliseconds.
template <class T, std::size_t Slots>
class handoff_queue {
 public:
  void push(T&& value) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [&] { return count_ < Slots; });
    slots_[(head_ + count_) % Slots].emplace(std::move(value));
    ++count_;
    lock.unlock();
    not_empty_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [&] { return count_ > 0; });
    std::optional<T>& slot = slots_[head_];
    T value = std::move(*slot);
    slot.reset();
    head_ = (head_ + 1) % Slots;
    --count_;
    lock.unlock();
    not_full_.notify_one();
    return value;
  }

 private:
  std::array<std::optional<T>, Slots> slots_;
  std::size_t head_ = 0, count_ = 0;
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
};

// The calling thread allocates messages and hands them to a consumer thread, which reads and
// frees them: every free is cross-thread. Messages travel in batches of 64, so the two threads
// meet once per batch rather than once per message.
struct message_queue_mt {
  static constexpr const char* name = "message_queue_mt";
  static constexpr const char* description =
      "2 threads: the calling thread allocates 4000 messages (16-512 byte strings), a consumer "
      "thread reads and frees each one (every free cross-thread; handed over in batches of 64, "
      "up to 4 batches in flight)";
  static constexpr std::size_t threads = 2;
  static constexpr std::size_t batch_size = 64;
  struct input {
    std::vector<std::uint32_t> sizes;
  };
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    for (int i = 0; i < 4000; ++i)
      in.sizes.push_back(static_cast<std::uint32_t>(rng.between(16, 512)));
    return in;
  }

  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    using string = typename containers<Policy>::string;
    using batch = std::array<std::optional<string>, batch_size>;
    handoff_queue<batch, 4> ring;
    const std::size_t total = in.sizes.size();
    std::uint64_t acc = 0;
    auto consumer = [&] {
      for (std::size_t i = 0; i < total;) {
        batch messages = ring.pop();
        for (std::size_t k = 0; k < batch_size && i < total; ++k, ++i) {
          acc = mix_bytes(mix(acc, i), *messages[k]);
          messages[k].reset();  // freed here, on the consumer thread
        }
      }
    };
    run_beside(consumer, [&] {
      for (std::size_t i = 0; i < total;) {
        batch messages;
        for (std::size_t k = 0; k < batch_size && i < total; ++k, ++i) {
          auto& message = messages[k].emplace(policy.make_string());
          message.assign(in.sizes[i], static_cast<char>('a' + i % 26));
        }
        ring.push(std::move(messages));
      }
    });
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(message_queue_mt);

}  // namespace
}  // namespace alloclab::lab
