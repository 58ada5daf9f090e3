// A budgeted run (`alloclab run --budget 5m`, the default): every cell gets a first round of
// processes, sized by time rather than by sample count, and the scheduler (schedule/budget_run)
// spends what is left of the budget on the comparisons still open. `--budget 0` or `--full` is
// the fixed plan (plan.hpp's sizes). docs/budget.md explains both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {

inline constexpr double default_budget_seconds = 300;
// Timed work per repetition of a batch cell (Google Benchmark's min time, per repetition).
inline constexpr double default_repetition_ms = 20;
// Samples per repetition: at least this many (a p99 needs them), unless a repetition would last
// over `max_repetition_stretch` times its target; never more than the most.
inline constexpr std::size_t min_samples_per_repetition = 100;
inline constexpr std::size_t max_samples_per_repetition = 5000;
inline constexpr double max_repetition_stretch = 5;
inline constexpr std::size_t smallest_samples_per_repetition = 5;

// How a cell is measured in a budgeted run: its group (cells of one workload in one frame pool
// their spread between processes), its first round of processes (one process cannot show that
// spread), the most it may get, and the repetitions of each process.
struct budget_cell {
  std::size_t group = 0;
  std::size_t first_processes = 2;
  std::size_t max_processes = 8;
  std::size_t repetitions = 3;       // per process while the spread between processes dominates
  std::size_t max_repetitions = 12;  // per process when the spread within a process dominates
};

// The most processes a cell may get with `budget_seconds`: 8 for 5 minutes or less, growing
// with the budget up to 32 (a longer budget buys more looks and processes, not just time).
std::size_t max_processes_for(double budget_seconds);

// What the rest of a budgeted run may do, fixed once after its first round from that round's
// measured cost and before any interval is looked at (so the stop rule's error rate holds): the
// rounds the seconds left afford, each costing `later_round_share` of the first round (measured:
// 0.13-0.15 in the default plan, docs/budget.md), the most processes a cell may reach in them
// (its first round grown by half each round, at least first + 1, at most
// `most_processes_per_cell`) and the looks that takes (the first one included).
inline constexpr double later_round_share = 0.15;
inline constexpr std::size_t most_processes_per_cell = 32;
struct rest_of_budget {
  std::size_t rounds = 0;
  std::size_t max_processes = 0;
  std::size_t looks = 1;
};
rest_of_budget plan_after_first_round(double first_round_seconds, double seconds_left,
                                      std::size_t first_processes);

// A cell's processes after `looks` looks: its first round grown by half at each (2, 3, 5, 8,
// 12, ...), at most `most`; and the looks it takes to reach `most` (the first one included).
std::size_t processes_after(std::size_t first, std::size_t most, std::size_t looks);
std::size_t looks_to_reach(std::size_t first, std::size_t most);

// "5m", "300s", "300" (seconds), "1h", "1m30s", "0"; throws usage_error naming --budget.
double parse_budget(const std::string& text);

// Seconds of the run's budget: --budget, 0 for --full, else the default when the request names no
// sizes (--iterations, --repetitions, --processes, --quick) and measures only frames with a stop
// rule (batch, heap, serve); 0 otherwise. Throws usage_error when --budget meets sizes or --full.
double resolve_budget(const run_request& request, const std::vector<frame>& frames);

// Sets a budgeted plan's shared sizes (first round per cell, time-sized samples, the most
// processes a cell may get); sizes.budget_seconds must be set. Each frame's resolve_sizes sizes
// its own cells for a budget (plan.sizes.budget_seconds > 0).
void apply_budget_sizes(measurement_sizes& sizes, const run_request& request);

// Each cell's budget setup, by frame.
std::vector<budget_cell> budget_cells(const run_plan& plan);

// The stop rule of a budgeted plan: as many looks as rounds it allows its cells.
stop_rule budget_rule(const std::vector<budget_cell>& cells);

// The first round: `first_processes` shuffled passes over the cells (seeded), one process of a
// cell per pass, so machine drift hits every cell alike.
std::vector<task> first_round(const std::vector<budget_cell>& cells, std::uint64_t seed);

// The fewest samples a repetition of a workload gets, from its calibrated sample time (every
// process of the workload the same, whatever a busy moment did to its warm-up):
// min_samples_per_repetition, unless that stretches a repetition past max_repetition_stretch
// targets (then that many, at least smallest_samples_per_repetition). Pure.
std::size_t repetition_floor(double target_ns, double calibrated_sample_ns);

// Samples of one repetition lasting `target_ns` when a sample takes `sample_ns`: the target's
// worth, at least `floor`, at most max_samples_per_repetition. Pure.
std::size_t samples_for_time(double target_ns, double sample_ns, std::size_t floor);

}  // namespace alloclab::lab
