// The lab's peer check: on every lab workload, under each malloc, does the best alloclab
// strategy beat every peer strategy at p50 with significance? Called by the results builder; the
// verdicts are part of results.json (docs/results-schema.md, `peer_verdicts`).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// Which side of the check a strategy is on.
enum class peer_side { alloclab, peer, neither };
// alloclab_*: ours. Peers: foonathan_*, boost_*, mimalloc_heap and libstdc++'s pmr resources
// (pmr_monotonic, pmr_unsync_pool, pmr_sync_pool, pmr_monotonic_over_pool). Neither: the
// baseline std, pmr_new_delete (malloc through a virtual call) and pmr_monotonic_undersized (seed
// 000's bug, kept on purpose).
peer_side side_of(const std::string& strategy);

// One verdict per malloc of the workload's cells:
//   {malloc, verdict: "met" | "missed" | "not_judged", best_alloclab: {strategy, p50_ns} | null,
//    peers: [{strategy, p50_ns, ratio (peer p50 / best alloclab p50), p_value, beaten}],
//    unmeasured_peers: [strategy], reason: string | null}
// A peer is beaten when the best alloclab p50 is lower and the Mann-Whitney U test over the
// per-repetition medians gives p < alpha (and the run has enough repetitions to reach alpha).
nlohmann::json peer_verdicts(const nlohmann::json& workload, bool test_has_power);

}  // namespace alloclab::lab
