// `alloclab advise`: recommendations for a recorded program from its replay's results and, when
// given, real runs of the program (`alloclab try`): a process-wide malloc (advise/malloc_advice),
// glibc tunables, size classes and a pool, an arena. With real runs, the malloc advice is theirs
// and the replay's agreement with them is reported (advise/agreement).
//
// Example:
//   // alloclab advise python3.trace --results replay/latest/results.json --real try.json
//   //   1. Process-wide malloc
//   //      from real runs (CPU time of the whole program, 9 runs per malloc); ...
#pragma once

#include <string>

#include "model/document.hpp"
#include "stats/decision.hpp"
#include "trace/trace_facts.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::lab {

struct advised_trace {
  const trace::trace_file* file = nullptr;
  trace::trace_summary summary;
  replay_trace_facts facts;
};

struct advise_options {
  double noise_floor_percent = default_noise_floor_percent;
  /// A program-frame results document of the same program (null: advise from the replay alone).
  const model::document* real = nullptr;
};

/// Throws usage_error when the results hold no replay of this trace, or the real runs are of
/// another program.
std::string advise(const advised_trace& trace, const std::string& trace_path,
                   const model::document& results, const advise_options& options = {});

}  // namespace alloclab::lab
