// The default plan (`alloclab run` with no selection): the lab suite under glibc, and every cell
// a measurable seed claim needs, read from the claims file: seed 004's batch cells under
// mimalloc, the heap study's FIFO cells under the mallocs the claims name, and a short serve of
// the serve claim's two variants. A claim added to claims/seed_claims.json adds its cells here.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"

namespace alloclab::lab {

// `alloclab run` with nothing selected (no --workloads, --strategies, --malloc or --frames) and
// nothing sized (no --iterations, --repetitions, --processes or --quick: those measure the lab
// suite at the sizes given), and not `alloclab replay`. `--full` and `--budget` keep it.
bool is_default_request(const run_request& request);

// A cell a claim needs, before it is resolved into the plan.
struct claim_cell {
  std::string workload;
  std::string strategy;
  std::string malloc;
  lab::frame frame = frame::batch;
  bool every_malloc = false;  // under every malloc of the plan (a ranking "under every malloc")
};

// The frame a measurable claim's cells are measured in: its "frame", as --frames names it.
// Throws std::invalid_argument naming the claim when "frame" is missing or names no frame `run`
// measures.
lab::frame claim_frame(const nlohmann::json& claim);

// Every cell the measurable claims of `claims` (seed_claims.json's document) need. Throws
// std::invalid_argument naming the claim when its frame is not one (claim_frame) or does not
// measure one of its workloads.
std::vector<claim_cell> cells_for_claims(const nlohmann::json& claims);

// Adds those cells (and their mallocs, heap workloads and frames) to a plan that holds the lab
// suite. Mallocs a claim names join as if selected by "all": one that is not installed gives a
// `not installed` row, not a failure.
void add_claim_cells(run_plan& plan, const nlohmann::json& claims);

}  // namespace alloclab::lab
