// The serve frame's own options of `alloclab run` and its sizes: what its row registers on `run`
// (add_serve_run_options, bound to its slot of run_request::frame_options) and what its
// resolve_sizes makes of them (its slot of run_plan::frame_sizes), read back by its planner,
// executor and results through serve_sizes_of.
#pragma once

#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

#include "plan/frame_slots.hpp"
#include "plan/plan.hpp"

namespace CLI {
class App;
}

namespace alloclab::lab {

inline constexpr const char* serve_frame_name = "serve";  // its slots' key, as --frames spells it

// Seconds of hey and of wrk per server (seed 004 ran hey for 50 s), and fresh servers per cell
// (a claim verdict needs at least 5 repetitions).
inline constexpr double default_serve_duration_seconds = 4;
inline constexpr double quick_serve_duration_seconds = 1;
inline constexpr std::size_t default_serve_repetitions = 5;
inline constexpr std::size_t quick_serve_repetitions = 2;
// Budgeted runs: hey alone, this long per server, five fresh servers per variant first.
inline constexpr double budget_serve_duration_seconds = 1.5;
inline constexpr unsigned serve_connections = 50;                      // seed 004: hey -c 50
inline constexpr double serve_ladder_fractions[] = {0.25, 0.5, 0.75};  // of closed-loop saturation

struct serve_run_options {
  std::optional<double> duration_seconds;  // --serve-duration: hey's and wrk's seconds
};

struct serve_plan_sizes {
  std::size_t repetitions = 0;  // fresh server processes per cell
  double duration_s = 0;        // seconds of each closed-loop generator
  bool hey_only = false;        // hey alone (the serve claim's generator): a budgeted run
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(serve_plan_sizes, repetitions, duration_s, hey_only)

// Registers --serve-duration on `run` (the frame's row's add_run_options).
void add_serve_run_options(CLI::App& run, frame_slots& options);

inline const serve_plan_sizes& serve_sizes_of(const run_plan& plan) {
  return plan.frame_sizes.get<serve_plan_sizes>(serve_frame_name);
}

}  // namespace alloclab::lab
