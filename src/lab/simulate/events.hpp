// Callgrind's cache-simulation events, read from one of its dump files, and the simulated cost
// they are turned into.
//
// With --cache-sim=yes a dump's `events:` line names Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
// (instructions, data reads and writes; first-level instruction/read/write misses; last-level
// ones) and its `summary:` line holds their totals, trailing zeros left out.
//
// The simulated cost of a region weighs each memory access by where the simulated hierarchy
// served it:
//   accesses  = Ir + Dr + Dw
//   L1 hits   = accesses - (I1mr + D1mr + D1mw)
//   LL hits   = (I1mr + D1mr + D1mw) - (ILmr + DLmr + DLmw)
//   memory    = ILmr + DLmr + DLmw
//   cost      = 1 x L1 hits + 5 x LL hits + 35 x memory
// (cost_weights; the units are "L1-hit equivalents"). It is noise-free: the same binary, input
// and simulated caches give the same counts, on any host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace alloclab::lab::simulate {

struct event_counts {
  std::int64_t ir = 0, dr = 0, dw = 0;
  std::int64_t i1mr = 0, d1mr = 0, d1mw = 0;
  std::int64_t ilmr = 0, dlmr = 0, dlmw = 0;

  std::int64_t accesses() const { return ir + dr + dw; }
  std::int64_t l1_misses() const { return i1mr + d1mr + d1mw; }
  std::int64_t ll_misses() const { return ilmr + dlmr + dlmw; }
  friend event_counts operator-(const event_counts& a, const event_counts& b);
  friend bool operator==(const event_counts& a, const event_counts& b);
};

struct callgrind_dump {
  std::string trigger;  // "Client Request: <name>", "Program termination", ...
  event_counts events;
};

// Reads a dump file's text; throws std::runtime_error when it is not a Callgrind dump with the
// cache simulation's events.
callgrind_dump read_callgrind_dump(std::string_view text);

// The client-request name a dump was triggered by, or nullopt for any other trigger.
std::optional<std::string> client_request_name(const callgrind_dump& dump);

struct cost_weights {
  double l1_hit = 1, ll_hit = 5, memory = 35;
};
inline constexpr cost_weights default_weights{};

// The formula above, in words, with `w`'s weights.
std::string cost_formula(const cost_weights& w = default_weights);

// The simulated cost of `e` (may be negative for a difference of two regions).
double simulated_cost(const event_counts& e, const cost_weights& w = default_weights);

}  // namespace alloclab::lab::simulate
