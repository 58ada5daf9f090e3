// `alloclab compare --paired`: two builds of the lab (two lab binaries) timed cell by cell in
// lockstep rings, the CI gate's comparison (docs/ci-gate.md). Each cell of the plan runs, per
// ring run, in two fresh worker processes, one of each build, beside the workload's other cells;
// the ring's token lets one slice run at a time, so slice k of the baseline and slice k of the
// candidate met the machine in the same state: baseline ÷ candidate of slice k is one paired
// reading. The stop rule (stats/sequential.hpp, compare_paired) grows ring runs 2 -> 3 -> 5 ...
// until each cell is decided: candidate faster, candidate slower, or the same within the margin
// (stats/decision.hpp's one verdict rule), or the runs or the budget are spent.
//
// Example:
//   paired_request r;
//   r.baseline_binary = "old/alloclab-lab";
//   r.candidate_binary = "build/release/alloclab-lab";
//   r.run.workloads = {"vector_push"};
//   const model::document d =
//       run_paired_compare(r, make_frame_executor, [](const std::string&) {});
//   std::cout << render_paired_text(*d.paired);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/document.hpp"
#include "plan/request.hpp"
#include "records/measurement_record.hpp"
#include "schedule/scheduler.hpp"

namespace alloclab::lab {

struct paired_request {
  std::string baseline_binary, candidate_binary;
  // --workloads, --strategies, --malloc, --seed, --budget, --repetition-time, --cell-timeout,
  // --allow-debug: as `run` takes them (batch-frame workloads only).
  run_request run;
  std::size_t most_runs = 8;       // --runs: the most ring runs a cell may get
  double margin_percent = 2;       // --margin
  double fail_above_percent = -1;  // --fail-on-regression (< 0: not given)
};

// Checks both binaries' protocols against this one's (usage_error, one line, when they cannot
// share a ring), measures, and returns the results document with its `paired_builds` section.
// `note` gets one progress line per ring run.
// `make_executor`: the frames' executors (main/ hands in the frame table's, tests their own).
model::document run_paired_compare(const paired_request& request,
                                   const executor_factory& make_executor,
                                   const std::function<void(const std::string&)>& note);

// The p50 of each repetition of a batch record (empty when it has no number).
std::vector<double> p50_by_repetition(const measurement_record& r);

std::string render_paired_text(const model::paired_builds& p);
std::string render_paired_markdown(const model::paired_builds& p);

}  // namespace alloclab::lab
