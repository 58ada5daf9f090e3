// The default plan (`alloclab run` with no selection): the lab suite under glibc, and every cell
// a measurable seed claim needs, read from the claims file: seed 004's batch cells under
// mimalloc, the heap study's FIFO cells under the mallocs the claims name, and a short serve of
// the serve claim's two variants. A claim added to claims/seed_claims.json adds its cells here.
#pragma once

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

// The frame a claim about `workload` is measured in: serve for a `serve_` metric, else the frame
// that measures the workload by default (the heap study's for its kernels, batch for the rest).
lab::frame claim_frame(const nlohmann::json& claim, const std::string& workload);

// Every cell the measurable claims of `claims` (seed_claims.json's document) need.
std::vector<claim_cell> cells_for_claims(const nlohmann::json& claims);

// Adds those cells (and their mallocs, heap workloads and frames) to a plan that holds the lab
// suite. Mallocs a claim names join as if selected by "all": one that is not installed gives a
// `not installed` row, not a failure.
void add_claim_cells(run_plan& plan, const nlohmann::json& claims);

}  // namespace alloclab::lab
