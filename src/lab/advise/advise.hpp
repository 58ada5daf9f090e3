// `alloclab advise`: recommendations for a recorded program from real runs of the program
// (`alloclab try`, the default evidence) and its replay's results (an estimate, labelled so): a
// process-wide malloc (advise/malloc_advice), glibc tunables, size classes and a pool, an arena.
// The answer comes first (one line), then the evidence, then the method. The malloc advice is
// the real runs'; every replay reversal of a decided real direction is printed
// (advise/agreement).
//
// Example:
//   // alloclab advise python3.trace --results replay/latest/results.json --real try.json
//   //   answer: use mimalloc: decided faster than glibc, 1.22x [1.18–1.26], ... (real runs)
//   //   evidence ...
//   //   method ...
#pragma once

#include <string>
#include <vector>

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
  /// Lines for the method section: how the real runs were made, what the trace did not record.
  std::vector<std::string> notes;
  /// Which knob settings advise had the real runs try, and why (advise/knob_trials.hpp); empty
  /// when the real runs came from --real.
  std::string knob_trials_line;
  /// Why there are no real runs when `real` is null, for the answer line.
  std::string no_real_because = "--no-real";
};

/// Throws usage_error when the results hold no replay of this trace, or the real runs are of
/// another program.
/// The line saying the replay's malloc ranking cannot predict this program's (empty when it
/// can): its reasons, from the trace (trace/replay_trust.hpp).
std::string replay_trust_line(const trace::replay_trust& trust);

std::string advise(const advised_trace& trace, const std::string& trace_path,
                   const model::document& results, const advise_options& options = {});

}  // namespace alloclab::lab
