// Seed 004's request-scoped mix, shared by request_mix (one request per iteration) and
// request_mix_mt (each thread serves requests of its own).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common.hpp"
#include "policy.hpp"

namespace alloclab::lab {

// Seed 004's request-scoped mix: tokenise a request line, parse headers into a small map,
// collect numeric parameters, and assemble a response body.
struct request_mix {
  static constexpr const char* name = "request_mix";
  static constexpr const char* description =
      "seed 004: one request: 16 tokens, an 8-header map<string,string>, 64 ints, a response "
      "string";
  struct input {
    std::string request_line;
    std::vector<std::pair<std::string, std::string>> headers;
    std::vector<int> parameters;
  };
  static input make_input(std::uint64_t seed) {
    seeded_rng rng(seed);
    input in;
    for (int i = 0; i < 16; ++i) {
      in.request_line.append(rng.between(3, 24), static_cast<char>('a' + rng.between(0, 25)));
      in.request_line += '/';
    }
    const char* names[] = {"host",         "user-agent",   "accept",        "accept-encoding",
                           "x-request-id", "content-type", "authorization", "x-forwarded-for"};
    for (const char* header_name : names) {
      in.headers.emplace_back(
          header_name,
          std::string(rng.between(4, 60), static_cast<char>('A' + rng.between(0, 25))));
    }
    for (int i = 0; i < 64; ++i) in.parameters.push_back(static_cast<int>(rng.between(0, 100'000)));
    return in;
  }
  template <class Policy>
  static std::uint64_t run(const Policy& policy, const input& in) {
    using string = typename containers<Policy>::string;
    auto tokens = policy.template make_vector<string>();
    std::string_view line = in.request_line;
    for (std::size_t start = 0, slash; (slash = line.find('/', start)) != std::string_view::npos;
         start = slash + 1)
      tokens.push_back(policy.make_string(line.substr(start, slash - start)));

    auto headers = policy.template make_map<string, string>();
    for (const auto& [key, value] : in.headers)
      headers.emplace(policy.make_string(key), policy.make_string(value));

    auto numbers = policy.template make_vector<int>();
    for (int p : in.parameters) numbers.push_back(p);

    auto body = policy.make_string("{\"tokens\":");
    append_number(body, tokens.size());
    for (const auto& [key, value] : headers) {
      body.append(",\"").append(key).append("\":");
      append_number(body, value.size());
    }
    std::uint64_t sum = 0;
    for (int n : numbers) sum += static_cast<std::uint64_t>(n);
    body.append(",\"sum\":");
    append_number(body, sum);
    body += '}';
    std::uint64_t acc = mix_bytes(0, body);
    for (const auto& t : tokens) acc = mix_bytes(acc, t);
    return acc;
  }
};

}  // namespace alloclab::lab
