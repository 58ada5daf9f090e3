// The lab's peer check: on every lab workload, under each malloc, does the best alloclab
// strategy beat every peer strategy at p50 with significance? Called by the results builder; the
// verdicts are part of results.json (docs/results-schema.md, `peer_verdicts`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "strategies/strategy.hpp"  // side_of

namespace alloclab::lab {

// One verdict per malloc of the workload's cells:
//   {malloc, verdict: "met" | "missed" | "not_judged", best_alloclab: {strategy, p50_ns} | null,
//    peers: [{strategy, p50_ns, ratio (peer p50 / best alloclab p50), p_value, beaten}],
//    unmeasured_peers: [strategy], reason: string | null}
// A peer is beaten when the best alloclab p50 is lower and the Mann-Whitney U test over the
// per-repetition medians gives p < alpha (and the run has enough repetitions to reach alpha).
nlohmann::json peer_verdicts(const nlohmann::json& workload, bool test_has_power);

}  // namespace alloclab::lab
