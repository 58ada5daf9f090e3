// results.json's `budget`: what a run's processes bought, by the stop rule. Built by
// schedule/budget_run.cpp, for a budgeted plan and (one look at the end) for a fixed one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "schedule/budget_state.hpp"

namespace alloclab::lab {

// One round of processes and the look after it.
struct round_account {
  std::size_t look = 0;
  std::size_t processes = 0;   // started in the round
  double elapsed_seconds = 0;  // since the run began, at the look
  std::size_t decided = 0;     // comparisons decided at the look
  std::size_t open = 0;
};

struct account_input {
  const run_plan& plan;
  const budget_state& state;
  const std::vector<comparison_look>& looks;  // the final look
  const std::vector<round_account>& rounds;
  const std::vector<measurement_record>& records;
  const std::vector<task>& ran;  // one per record
  std::string mode;              // "budget" or "fixed"
  std::string stopped;           // why the run stopped adding processes
  double spent_seconds = 0;
};

// The whole section (docs/results-schema.md, `budget`).
nlohmann::json budget_account(const account_input& in);

// How many of the open comparisons `extra_seconds` more would likely decide, at their observed
// spread, if a cell could get up to `max_processes`: the cheapest first, each costing the
// processes its two cells still need.
std::size_t likely_decided_with(const budget_state& state,
                                const std::vector<comparison_look>& looks, double extra_seconds,
                                std::size_t max_processes);

}  // namespace alloclab::lab
