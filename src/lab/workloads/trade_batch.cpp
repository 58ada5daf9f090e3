#include "common.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

struct Trade {
  int id;
  double price;
  double quantity;
};

// Seed 002: a batch of 100 trades built in a reserved vector inside the hot loop.
struct trade_batch {
  static constexpr const char* name = "trade_batch";
  static constexpr const char* description =
      "seed 002: reserve(100) then push_back 100 Trade{int, double, double}";
  struct input {
    int batch_size;
  };
  static input make_input(std::uint64_t) { return input{100}; }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    auto trades = policy.template make_vector<Trade>();
    trades.reserve(static_cast<std::size_t>(in.batch_size));
    for (int i = 0; i < in.batch_size; ++i) trades.push_back(Trade{i, 100.0 + i, 50.0});
    std::uint64_t acc = trades.size();
    for (const Trade& t : trades)
      acc = mix(mix(acc, static_cast<std::uint64_t>(t.id)), bits_of(t.price));
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(trade_batch);

}  // namespace
}  // namespace alloclab::lab
