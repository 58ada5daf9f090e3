#include <string_view>

#include "common.hpp"
#include "workload.hpp"

namespace alloclab::lab {
namespace {

// Seed 001: 32 log strings "event_log_entry_number_<i>" (24-25 chars, past the SSO limit)
// in a reserved vector, per iteration.
struct log_lines {
  static constexpr const char* name = "log_lines";
  static constexpr const char* description =
      "seed 001: reserve(32) then 32 strings \"event_log_entry_number_\" + i (heap-sized)";
  struct input {
    int lines;
  };
  static input make_input(std::uint64_t) { return input{32}; }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    constexpr std::string_view prefix = "event_log_entry_number_";
    auto entries = policy.template make_vector<typename containers<Policy>::string>();
    entries.reserve(static_cast<std::size_t>(in.lines));
    for (int i = 0; i < in.lines; ++i) {
      // One exact-size allocation per line, like the seed's prefix + std::to_string(i).
      auto line = policy.make_string();
      line.reserve(prefix.size() + 10);
      line.append(prefix);
      append_number(line, static_cast<std::uint64_t>(i));
      entries.push_back(std::move(line));
    }
    std::uint64_t acc = entries.size();
    for (const auto& e : entries) acc = mix_bytes(acc, e);
    return acc;
  }
};

LAB_REGISTER_WORKLOAD(log_lines);

}  // namespace
}  // namespace alloclab::lab
