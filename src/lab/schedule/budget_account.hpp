// What a run's processes bought, by the stop rule: the account a budgeted run makes after its
// last look, and a fixed plan once at the end (schedule/budget_run.cpp). Typed; the results
// builder writes it as results.json's `budget` (results/budget_section.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/budget.hpp"
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

// A cell: what its figures stand on, and where its spread is.
struct cell_account {
  std::size_t cell = 0;  // index into run_plan::cells
  std::size_t processes = 0;
  std::size_t repetitions = 0;
  std::optional<std::size_t> samples_per_repetition;  // batch cells
  double seconds = 0;
  std::string figure;                // what the spread is of ("p50", "ns_per_pair", ...)
  std::optional<double> between_cv;  // square root of the between-process variance (log scale)
  std::optional<double> within_cv;
  std::string spread;  // "between processes", "within processes", "unknown ..."
};

// A tracked comparison at the last look.
struct comparison_account {
  tracked_comparison comparison;
  sequential_ratio ratio;
  std::string state;  // "decided", "open", "unmeasurable"
  std::size_t base_processes = 0;
  std::size_t candidate_processes = 0;
  std::optional<std::size_t> processes_needed;  // per side, to clear the nearest boundary
  std::size_t paired_runs = 0;                  // > 0: the interval stands on paired slices
};

// The rest of a budgeted run as planned after its first round (plan/budget.hpp).
struct rest_plan {
  double first_round_seconds = 0;
  double seconds_left = 0;  // of the budget then, the closing seconds kept back
  rest_of_budget rest;
};

struct budget_account {
  std::string mode;  // "budget" or "fixed"
  std::optional<double> budget_seconds;
  double spent_seconds = 0;
  std::optional<double> repetition_ms;
  stop_rule rule;
  std::string stopped;  // why no more processes started
  std::size_t processes = 0;
  std::vector<round_account> rounds;
  std::size_t decided = 0, open = 0, unmeasurable = 0;
  struct more {
    double budget_seconds = 0;
    std::size_t would_likely_decide = 0;
    std::size_t of_open = 0;
  };
  std::optional<more> more_budget;             // a budgeted run with comparisons still open
  std::optional<rest_plan> after_first_round;  // a budgeted run
  std::vector<cell_account> cells;
  std::vector<comparison_account> comparisons;
};

struct account_input {
  const run_plan& plan;
  const budget_state& state;
  const std::vector<comparison_look>& looks;  // the final look
  const std::vector<round_account>& rounds;
  const std::vector<measurement_record>& records;
  const std::vector<task>& ran;  // one per record
  std::string mode;              // "budget" or "fixed"
  std::string stopped;
  double spent_seconds = 0;
  const rest_plan* after_first_round = nullptr;  // a budgeted run's
};

budget_account make_account(const account_input& in);

// The rule as its final intervals were computed: at the last round's look (a run that stopped at
// look 1 has intervals at look 1's confidence, not the last look's), at `rule`'s own without rounds.
stop_rule rule_at_final_look(const stop_rule& rule, const std::vector<round_account>& rounds);

// How many of the open comparisons `extra_seconds` more would likely decide, at their observed
// spread, if a cell could get up to `max_processes`: the cheapest first, each costing the
// processes its two cells still need.
std::size_t likely_decided_with(const budget_state& state,
                                const std::vector<comparison_look>& looks, double extra_seconds,
                                std::size_t max_processes);

}  // namespace alloclab::lab
