// The replay frame's own request and sizes: what `alloclab replay TRACE` puts in the frame's slot
// of run_request::frame_options (the trace, already read and checked, and the in-process
// resources to replay it through besides the process-wide mallocs), and what its resolve_sizes
// makes of it (its slot of run_plan::frame_sizes), read back by its planner, executor and
// results through replay_sizes_of. The frame registers no option of `run`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/frame_slots.hpp"
#include "plan/plan.hpp"
#include "trace/trace_facts.hpp"

namespace alloclab::lab {

inline constexpr const char* replay_frame_name = "replay";  // its slots' key, as --frames spells it

inline constexpr std::size_t replay_default_repetitions = 5;
inline constexpr std::size_t replay_quick_repetitions = 3;

struct replay_request {
  std::string trace;  // path; empty: no replay frame
  std::string name;   // the workload name of its cells (the file's stem)
  replay_trace_facts facts;
  // --strategies of `replay`: replay_resources() names, "all"; in the plan, the resources chosen.
  std::vector<std::string> strategies;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(replay_request, trace, name, facts, strategies)

struct replay_plan_sizes {
  std::size_t repetitions = 0;  // whole replays, over all processes
  replay_request replay;        // the trace and the resources (strategies) it goes through
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(replay_plan_sizes, repetitions, replay)

// The replay `alloclab replay` asked for (no trace: none).
inline replay_request& replay_request_of(run_request& request) {
  return request.frame_options.slot<replay_request>(replay_frame_name);
}
inline const replay_request& replay_request_of(const run_request& request) {
  return request.frame_options.get<replay_request>(replay_frame_name);
}

inline const replay_plan_sizes& replay_sizes_of(const run_plan& plan) {
  return plan.frame_sizes.get<replay_plan_sizes>(replay_frame_name);
}

}  // namespace alloclab::lab
