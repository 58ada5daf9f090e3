// results.json's `budget`: the stop rule's account of the run (schedule/budget_account.hpp),
// written here as every other part of the results is, by the results builder.
#pragma once

#include "model/run_account.hpp"
#include "plan/plan.hpp"
#include "schedule/budget_account.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

// docs/results-schema.md, `budget`. Cells and comparisons are named by the plan's cells.
// A plan cell's name as the budget account gives it; the stop rule's facts.
model::budget_cell_name budget_cell_name_of(const cell_spec& c);
model::stop_rule_facts stop_rule_facts(const stop_rule& rule);

model::budget_facts budget_facts(const budget_account& account, const run_plan& plan);

}  // namespace alloclab::lab
