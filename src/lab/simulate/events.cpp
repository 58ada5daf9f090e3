#include "simulate/events.hpp"

#include <array>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace alloclab::lab::simulate {
namespace {

constexpr std::array<std::string_view, 9> cache_events = {"Ir",   "Dr",   "Dw",   "I1mr", "D1mr",
                                                          "D1mw", "ILmr", "DLmr", "DLmw"};

std::vector<std::string> words_after(std::string_view line, std::string_view key) {
  std::istringstream in{std::string(line.substr(key.size()))};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Each value of `summary` under its name in `names` (missing trailing values are 0).
event_counts counts_of(const std::vector<std::string>& names,
                       const std::vector<std::string>& values) {
  std::array<std::int64_t, cache_events.size()> by_event{};
  std::array<bool, cache_events.size()> named{};
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t e = 0; e < cache_events.size(); ++e)
      if (names[i] == cache_events[e]) {
        named[e] = true;
        by_event[e] = i < values.size() ? std::stoll(values[i]) : 0;
      }
  for (std::size_t e = 0; e < cache_events.size(); ++e)
    if (!named[e])
      throw std::runtime_error(fmt::format(
          "callgrind dump has no {} event (was it run with --cache-sim=yes?)", cache_events[e]));
  const auto& v = by_event;
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
}

}  // namespace

event_counts operator-(const event_counts& a, const event_counts& b) {
  return {a.ir - b.ir,     a.dr - b.dr,     a.dw - b.dw,     a.i1mr - b.i1mr, a.d1mr - b.d1mr,
          a.d1mw - b.d1mw, a.ilmr - b.ilmr, a.dlmr - b.dlmr, a.dlmw - b.dlmw};
}

bool operator==(const event_counts& a, const event_counts& b) {
  const event_counts d = a - b;
  return d.ir == 0 && d.dr == 0 && d.dw == 0 && d.i1mr == 0 && d.d1mr == 0 && d.d1mw == 0 &&
         d.ilmr == 0 && d.dlmr == 0 && d.dlmw == 0;
}

callgrind_dump read_callgrind_dump(std::string_view text) {
  callgrind_dump dump;
  std::vector<std::string> names, summary;
  bool has_summary = false;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("desc: Trigger: ", 0) == 0) dump.trigger = line.substr(15);
    if (line.rfind("events:", 0) == 0) names = words_after(line, "events:");
    if (line.rfind("summary:", 0) == 0) {
      summary = words_after(line, "summary:");
      has_summary = true;
    }
  }
  if (names.empty() || !has_summary)
    throw std::runtime_error("not a callgrind dump (no events: or summary: line)");
  try {
    dump.events = counts_of(names, summary);
  } catch (const std::logic_error& e) {  // std::stoll: not a number, out of range
    throw std::runtime_error(std::string("callgrind dump: bad summary: ") + e.what());
  }
  return dump;
}

std::optional<std::string> client_request_name(const callgrind_dump& dump) {
  constexpr std::string_view prefix = "Client Request: ";
  if (dump.trigger.rfind(prefix, 0) != 0) return std::nullopt;
  return dump.trigger.substr(prefix.size());
}

std::string cost_formula(const cost_weights& w) {
  return fmt::format(
      "cost = {:g} × L1 hits + {:g} × LL hits + {:g} × memory accesses (LL misses), where "
      "accesses = Ir + Dr + Dw, L1 misses = I1mr + D1mr + D1mw, LL misses = ILmr + DLmr + DLmw",
      w.l1_hit, w.ll_hit, w.memory);
}

double simulated_cost(const event_counts& e, const cost_weights& w) {
  const auto l1_hits = static_cast<double>(e.accesses() - e.l1_misses());
  const auto ll_hits = static_cast<double>(e.l1_misses() - e.ll_misses());
  const auto memory = static_cast<double>(e.ll_misses());
  return w.l1_hit * l1_hits + w.ll_hit * ll_hits + w.memory * memory;
}

}  // namespace alloclab::lab::simulate
