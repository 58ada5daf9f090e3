// Seed claims: the data file (claims/seed_claims.json, compiled in) and generic verdicts
// computed from a results document.
#pragma once

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// The claims document compiled into the binary.
const nlohmann::json& seed_claims();

// One verdict per claim: {id, seed, statement, verdict, measured, detail}.
// verdict is "reproduced", "refuted", "not measured in this run" (the cells it needs were not part
// of this run; the detail says which options measure it) or "not measurable here".
nlohmann::json judge_claims(const nlohmann::json& results, const nlohmann::json& claims);

}  // namespace alloclab::lab
