// The lab's peer check: on every lab workload, under each malloc, does the best alloclab
// strategy beat every peer strategy at p50 with significance? Called by the results builder; the
// verdicts are part of the results model (docs/results-schema.md, `peer_verdicts`).
#pragma once

#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/peers.hpp"
#include "strategies/strategy.hpp"  // side_of

namespace alloclab::lab {

// One verdict per malloc of the workload's cells:
//   {malloc, verdict: "met" | "missed" | "not_judged", best_alloclab: {strategy, p50_ns} | null,
//    peers: [{strategy, p50_ns, ratio (peer p50 / best alloclab p50), p_value, beaten}],
//    unmeasured_peers: [strategy], reason: string | null}
// A peer is beaten when the best alloclab p50 is lower and the Mann-Whitney U test over the
// per-repetition medians gives p < alpha (and the run has enough repetitions to reach alpha).
//
// A budgeted run tracks each peer against its best alloclab strategy with the stop rule (paired
// when the cells ran in lockstep); where it did, the verdict stands on that interval instead:
// beaten when it lies above 1, the same when it lies inside the equivalence margin.
struct peer_stop_interval {
  std::string malloc, best, peer;
  double value = 0, low = 0, high = 0, margin = 0;
  std::size_t paired_runs = 0;
};
std::vector<model::peer_verdict> peer_verdicts(
    const model::workload& workload, bool test_has_power,
    const std::vector<peer_stop_interval>& stop_rule = {});

}  // namespace alloclab::lab
