// Seed claims: the data file (claims/seed_claims.json, compiled in) and generic verdicts
// judged from the results model (model::document).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/claims.hpp"
#include "model/document.hpp"

namespace alloclab::lab {

// The claims document compiled into the binary.
const nlohmann::json& seed_claims();
// Its JSON Schema (claims/seed_claims.schema.json, compiled in), and every way a claims document
// departs from it, as results/schema_check.hpp words them ("/claims/3/metric: ..."): a missing or
// unknown key, a metric the table does not name, a value of the wrong type. Empty: none.
const nlohmann::json& seed_claims_schema();
std::vector<std::string> claims_problems(const nlohmann::json& claims);

// One verdict per claim, in the claims file's order. verdict is "reproduced", "refuted",
// "inconclusive", "not judged: too few samples", "not measured in this run" (the cells it needs
// were not part of this run; the detail says which options measure it) or "not measurable here".
std::vector<model::claim_verdict> claim_verdicts(const model::document& results,
                                                 const nlohmann::json& claims);
// The same verdicts of a results file's JSON (read into the model; throws model::model_error when
// it is not a results file this alloclab reads), as results.json's `claims` holds them.
nlohmann::json judge_claims(const nlohmann::json& results, const nlohmann::json& claims);

}  // namespace alloclab::lab
