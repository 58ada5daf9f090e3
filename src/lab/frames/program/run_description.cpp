#include "frames/program/run_description.hpp"

#include <fmt/format.h>

#include "model/document.hpp"
#include "results/results_builder.hpp"
#include "stats/stats.hpp"

namespace alloclab::program {

namespace {

constexpr const char* frame_description =
    "the user's own program, run whole under each malloc (preloaded, proven live in every process "
    "by the liveness probe) and knob variant: CPU time of its process tree and wall time from "
    "wait4, peak RSS the largest VmHWM its processes report at exit (wait4's when none does), so "
    "page faults, start-up and the program's own memory accesses are included";

// The run's configuration in the lab's terms: one run of the program is one sample, a round is a
// repetition; there are no workloads or strategies.
lab::model::run_config config_of(const lab::program_results_section& program) {
  lab::model::run_config c;
  for (const lab::combination_result& combination : program.combinations)
    if (combination.knobs.empty()) c.mallocs.push_back(combination.malloc);
  c.samples_per_repetition = 1;
  c.repetitions = program.rounds;
  c.seed = program.seed;
  c.counted_iterations = 1;
  c.cell_timeout_seconds = program.timeout_seconds;
  return c;
}

// One reading per run, by wait4 and the wall clock: no timer overhead to subtract.
lab::model::timer_facts timer_of() {
  lab::model::timer_facts t;
  t.clock = "wait4 rusage (CPU) and CLOCK_MONOTONIC (wall), one reading per run";
  t.resolution_ns = 1000;
  return t;
}

lab::model::significance_facts significance_of(std::size_t rounds) {
  lab::model::significance_facts s;
  s.test = "Mann-Whitney U, two-sided, over per-run figures";
  s.alpha = lab::significance_alpha;
  s.smallest_possible_p = lab::mann_whitney_min_p(rounds, rounds);
  s.enough_repetitions = lab::test_has_power(rounds);
  return s;
}

}  // namespace

void describe_program_run(lab::model::document& results) {
  const auto* part = results.parts.get<lab::program_document_figures>();
  if (part == nullptr) return;
  results.config = config_of(part->program);
  results.timer = timer_of();
  results.significance = significance_of(part->program.rounds);
  results.budget.reset();  // no run budget: the program part's `stopping` tells its rounds' stop
}

std::string program_numbers_include(const lab::run_plan&) {
  return frame_description;
}

std::vector<std::string> program_warnings(const lab::model::document& results) {
  std::vector<std::string> warnings;
  const auto* part = results.parts.get<lab::program_document_figures>();
  if (part == nullptr) return warnings;
  const lab::program_results_section& program = part->program;
  if (program.output.mode == "check" && !program.output.consistent)
    warnings.push_back("program output differs: " + program.output.finding.value());
  for (const lab::combination_result& c : program.combinations)
    if (c.runs_failed > 0)
      warnings.push_back(
          fmt::format("{}: {} of its runs failed (no numbers)", c.name, c.runs_failed));
  return warnings;
}

}  // namespace alloclab::program
