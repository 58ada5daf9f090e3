// results.json's `budget`: the stop rule's account of the run (schedule/budget_account.hpp),
// written here as every other part of the results is, by the results builder.
#pragma once

#include "model/run_account.hpp"
#include "plan/plan.hpp"
#include "schedule/budget_account.hpp"

namespace alloclab::lab {

// docs/results-schema.md, `budget`. Cells and comparisons are named by the plan's cells.
model::budget_facts budget_facts(const budget_account& account, const run_plan& plan);

}  // namespace alloclab::lab
