// The program frame's plan and executor: `alloclab try`'s request checked and planned (plan_try:
// the frame's part, with when its rounds stop) and made the lab's run_plan, so the shared stages
// run it. Its cells are program x variant (a malloc and its knob settings), one
// cell per combination in the request's order (the baseline first); its schedule is the plan's
// interleaved schedule (plan/plan.hpp): every round each cell once, in a fresh shuffled order
// (seeded, so a run can be repeated), one run of the program = one task = one process (as the
// serve frame's one_repetition_per_process). What to run and how is the frame's try_plan, kept in
// its slot of plan.frame_sizes ("program"); its executor (make_program_executor) runs the
// program once under the task's combination and returns a measurement_record whose figures are
// the run's run_record (CPU seconds are what the stop rule reads).
//
// Example:
//   const auto planned = alloclab::program::plan_try(request);  // usage_error on bad input
//   const lab::run_plan plan = alloclab::program::make_program_plan(planned);
//   const auto ran = lab::run_rounds(plan, make, done, another_round);   // schedule/round_run.hpp
//   const auto rows = alloclab::program::rows_of(ran.ran, ran.records);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frames/program/program_run.hpp"
#include "plan/plan.hpp"
#include "records/frame_figures.hpp"
#include "records/measurement_record.hpp"
#include "schedule/round_stopping.hpp"

namespace alloclab::lab {
class executor;
}

namespace alloclab::program {

/// The frame's name in the plan (its frame_sizes slot) and in records.
inline constexpr const char* program_frame_name = "program";

/// The figure of a run the rounds' stop rule reads (its CPU seconds: stop_readings_of).
inline constexpr const char* stop_figure = "cpu_seconds";

/// One run of the program, with where it stood in the schedule.
struct run_row {
  std::size_t round = 0;        ///< 0-based
  std::size_t position = 0;     ///< place in its round's order
  std::size_t combination = 0;  ///< index into the plan's combinations (= its cell)
  run_record record;
};

/// The frame's own part of the plan: what runs, and how, and when its rounds stop.
struct try_plan {
  run_setup setup;
  std::vector<variant> combinations;
  std::size_t rounds = 5;  ///< at most this many
  std::uint64_t seed = 1;
  std::string scratch_directory;  ///< where each run's proof file is written
  lab::stopping_plan stopping = lab::fixed_stopping(5);
  bool check_output = false;  ///< --output check: every run's stdout must be the same
};

struct try_request;  // try_command.hpp

/// Checks the request and plans it (its scratch_directory left to the caller: the run's
/// directory); throws lab::usage_error (exit 2) on bad input: no program or
/// one not found, an unknown or missing malloc, bad variants, --rounds with --budget, a bad
/// --stdin or --cwd, no liveness probe.
try_plan plan_try(const try_request& request);

/// The run plan of `frame_plan`: a cell per combination, frame_plan.rounds rounds of tasks.
lab::run_plan make_program_plan(const try_plan& frame_plan);
/// The frame's part of a plan make_program_plan made.
const try_plan& program_part(const lab::run_plan& plan);

/// The executor of the program frame: one run of the program per task.
std::unique_ptr<lab::executor> make_program_executor();

/// The record of one run of `combination` for task `t` (what the executor returns for it).
lab::measurement_record record_of(const variant& combination, const lab::task& t, run_record run);

/// The rows of the records, each record of the task at the same index of `ran` (the round is the
/// task's part, the combination its cell). A record without a run (none) is skipped.
std::vector<run_row> rows_of(const std::vector<lab::task>& ran,
                             const std::vector<lab::measurement_record>& records);

// A run_record as a record's figures (records/frame_figures.hpp): its JSON, read back by the
// row's read_figures (a record's transport: shard files, record_from_json); its CPU seconds as
// the stop rule's one reading; one timed sample.
void to_json(nlohmann::json& j, const run_record& r);
void from_json(const nlohmann::json& j, run_record& r);
std::vector<lab::figure_readings> stop_readings_of(const run_record& r);
lab::sample_count timed_samples_of(const run_record& r);

}  // namespace alloclab::program
