// Seed claims: the data file (claims/seed_claims.json, compiled in) and generic verdicts
// computed from a results document.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "model/claims.hpp"

namespace alloclab::lab {

// The claims document compiled into the binary.
const nlohmann::json& seed_claims();

// One verdict per claim, in the claims file's order. verdict is "reproduced", "refuted",
// "inconclusive", "not judged: too few samples", "not measured in this run" (the cells it needs
// were not part of this run; the detail says which options measure it) or "not measurable here".
std::vector<model::claim_verdict> claim_verdicts(const nlohmann::json& results,
                                                 const nlohmann::json& claims);
// The same verdicts as results.json's `claims` holds them (written by the model's codec).
nlohmann::json judge_claims(const nlohmann::json& results, const nlohmann::json& claims);

}  // namespace alloclab::lab
