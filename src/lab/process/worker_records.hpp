// What the executors share: starting a measuring worker for a cell and turning whatever it did
// into a measurement_record.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "process/measuring_worker.hpp"
#include "plan/plan.hpp"
#include "records/measurement_record.hpp"

namespace alloclab::lab {

// A record with no figures: not installed, failed, refused (an empty reason stays empty).
measurement_record unmeasured_record(const cell_spec& cell, const task& t,
                                     const std::string& status, const std::string& reason);

// Runs `argv` (argv[0] "/proc/self/exe" re-executes this binary) under the cell's malloc
// environment with the plan's timeout. Never throws.
alloclab::heap::cell_outcome run_cell_worker(const cell_spec& cell, std::vector<std::string> argv,
                                             const run_plan& plan);

// A record for a worker that did not measure (crash, timeout, refusal), with its exit facts.
measurement_record failed_record(const cell_spec& cell, const task& t,
                                 const alloclab::heap::cell_outcome& outcome);

// Reads a worker's "result" document into the record's figures; throws nlohmann::json::exception
// on a document that is not what the frame's worker prints.
using figures_reader = std::function<void(const nlohmann::json& result, measurement_record& r)>;

// One task of a frame whose worker is `alloclab <command> <spec_json>` under the cell's malloc:
// a not-installed malloc, a worker that did not measure, or a document `read` rejects becomes a
// record with a status and a reason; otherwise the record carries the worker's proof of its
// malloc and the figures `read` took. Never throws.
measurement_record run_worker_task(const run_plan& plan, const task& t, const char* command,
                                   const std::string& spec_json, const figures_reader& read);

// The worker block of a record: exit status, signal, timeout, wall time, stderr tail.
nlohmann::json worker_facts(const alloclab::heap::worker_outcome& w, bool keep_stderr);

// Worker side: proves the worker's malloc into `live`; prints the refusal document on stdout and
// returns false when it cannot (under AddressSanitizer, plain glibc is measured anyway).
bool prove_or_refuse(const malloc_choice& malloc, nlohmann::json& live);

}  // namespace alloclab::lab
