// What the executors share: starting a measuring worker for a cell and turning whatever it did
// into a measurement_record.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "process/measuring_worker.hpp"
#include "process/worker_main.hpp"
#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "schedule/executor.hpp"

namespace alloclab::lab {

// A record with no figures: not installed, failed, refused (an empty reason stays empty).
measurement_record unmeasured_record(const cell_spec& cell, const task& t,
                                     const std::string& status, const std::string& reason);

// Runs `argv` (argv[0] "/proc/self/exe" re-executes this binary; a lockstep ring member's
// enrolment may name another build's, lockstep/enrolment.hpp) under the cell's malloc
// environment with the plan's timeout. Never throws.
alloclab::process::cell_outcome run_cell_worker(const cell_spec& cell,
                                                std::vector<std::string> argv,
                                                const run_plan& plan);

// A record for a worker that did not measure (crash, timeout, refusal), with its exit facts.
measurement_record failed_record(const cell_spec& cell, const task& t,
                                 const alloclab::process::cell_outcome& outcome);

// The spec a frame's worker gets for task `t` of `cell`.
using spec_writer =
    std::function<nlohmann::json(const cell_spec& cell, const task& t, const run_plan& plan)>;

// Reads a worker's "result" document into the record's figures; throws nlohmann::json::exception
// on a document that is not what the frame's worker prints.
using figures_reader =
    std::function<void(const nlohmann::json& result, const run_plan& plan, measurement_record& r)>;

// A figures_reader that converts the whole result into the record's figures, of type `Figures`
// (e.g. read_into<memory_figures>()).
template <class Figures>
figures_reader read_into() {
  return [](const nlohmann::json& result, const run_plan&, measurement_record& r) {
    r.figures = frame_figures(result.get<Figures>());
  };
}

// The executor of a frame whose every task is one worker `alloclab <command> <spec>` under the
// cell's malloc, with nothing to prepare: a not-installed malloc, a worker that did not measure,
// or a document `read` rejects becomes a record with a status and a reason; otherwise the record
// carries the worker's proof of its malloc and the figures `read` took.
std::unique_ptr<executor> make_worker_executor(const char* command, spec_writer write,
                                               figures_reader read);

// The worker block of a record: exit status, signal, timeout, wall time, stderr tail.
nlohmann::json worker_facts(const alloclab::process::worker_outcome& w, bool keep_stderr);

// Worker side: a cell `id` under `malloc`, proven with prove_choice (under AddressSanitizer,
// plain glibc is measured anyway); the caller adds its measuring function.
alloclab::process::worker_cell cell_under(const malloc_choice& malloc, std::string id);

// Worker side: `alloclab <command> <spec_json>` run by process/worker_main.hpp on stdout and
// stderr, with the process hooks' before_measuring. Returns the exit status.
int run_frame_worker(const char* command, const char* spec_json,
                     std::function<alloclab::process::worker_cell(const nlohmann::json&)> read);

}  // namespace alloclab::lab
