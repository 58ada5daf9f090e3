#include "results/results_builder.hpp"

#include "results/cell_parts.hpp"
#include "results/frame_results_writer.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "model/document.hpp"
#include "plan/frame_planner.hpp"
#include "results/budget_section.hpp"
#include "results/claims.hpp"
#include "results/environment.hpp"
#include "results/peer_verdict.hpp"
#include "results/ratio_intervals.hpp"
#include "stats/stats.hpp"
#include "strategies/strategy.hpp"
#include "text/plural.hpp"
#include "workloads/workload.hpp"

#include "simulate/results.hpp"
#include "stats/decision.hpp"
namespace alloclab::lab {

double amdahl_ratio(double share, double speedup) {
  return 1.0 / ((1.0 - share) + share / speedup);
}
namespace {

using json = nlohmann::json;

// The frame whose sizes results.json's config gives: a replay alone, else the heap study alone,
// else the memory frame when no lab workload is measured, else the batch frame.
frame config_frame(const run_plan& plan) {
  if (!plan.workloads.lab.empty()) return frame::batch;
  if (plan.workloads.heap.empty() && has_frame(plan, frame::replay)) return frame::replay;
  return plan.workloads.heap.empty() ? frame::memory : frame::heap;
}

// What was asked for; the heap and replay frames add their settings (add_results).
model::run_config run_config_of(const run_plan& plan) {
  model::run_config c;
  for (const auto& m : plan.mallocs) c.mallocs.push_back(m.label);
  c.workloads = plan.workloads.lab;
  c.workloads.insert(c.workloads.end(), plan.workloads.heap.begin(), plan.workloads.heap.end());
  c.workloads.insert(c.workloads.end(), plan.workloads.memory.begin(), plan.workloads.memory.end());
  if (!plan.workloads.lab.empty()) c.strategies = plan.strategies;
  const frame_planner& leading = planner_of(config_frame(plan));
  for (const frame f : plan.frames)  // a workload a frame's own command named (a trace)
    if (const frame_planner& row = planner_of(f); row.selection != nullptr) {
      own_selection named = row.selection(plan);
      c.workloads.insert(c.workloads.end(), named.workloads.begin(), named.workloads.end());
      if (&row == &leading) c.strategies = std::move(named.strategies);
    }
  c.samples_per_repetition = leading.samples_per_repetition != nullptr
                                 ? leading.samples_per_repetition(plan)
                                 : plan.sizes.samples_per_repetition;
  c.repetitions = leading.repetitions(plan);
  c.processes.emplace(plan.sizes.processes);
  c.seed = plan.sizes.seed;
  c.quick = plan.sizes.quick;
  c.counted_iterations = plan.sizes.counted_iterations;
  c.skip_missing = plan.skip_missing;
  c.placement_twin.emplace();
  if (!plan.placement_twin.empty()) *c.placement_twin = plan.placement_twin;
  c.cell_timeout_seconds = static_cast<double>(plan.cell_timeout.count()) / 1000.0;
  return c;
}

// The clock as the frames' calibrations read it (any frame's calibrations read it).
clock_profile clock_of(const run_records& run) {
  clock_profile clock;
  for (const auto& facts : run.frame_facts)
    for (const json& c : facts.value("calibrations", json::object())) {
      clock.overhead_ns =
          std::max(clock.overhead_ns, c.at("clock").at("overhead_ns").get<double>());
      clock.resolution_ns =
          std::max(clock.resolution_ns, c.at("clock").at("resolution_ns").get<double>());
    }
  return clock;
}

model::significance_facts significance_of(std::size_t repetitions, bool power) {
  model::significance_facts s;
  s.test = "Mann-Whitney U, two-sided, over per-repetition medians";
  s.alpha = significance_alpha;
  s.interval_confidence.emplace(interval_confidence);
  s.smallest_possible_p = mann_whitney_min_p(repetitions, repetitions);
  s.enough_repetitions = power;
  return s;
}

// Everything but the workloads, the frames' own sections, the warnings and the claims.
model::document skeleton(const run_plan& plan, const run_records& run,
                         const results_context& context, std::size_t repetitions, bool power) {
  model::document d;
  d.schema_version = results_schema_version;
  d.created_utc = context.created_utc;
  d.command = context.command_line;
  d.debug_build = !context.build.benchmark_ready();
  d.smoke_test = plan.sizes.quick;
  d.config = run_config_of(plan);
  for (const auto& row : frame_results_writers())
    if (std::find(plan.frames.begin(), plan.frames.end(), row.id) != plan.frames.end())
      d.frames[row.name] = row.part.what_numbers_include(plan);
  d.environment = describe_environment(context.build);
  d.environment.placement = context.placement;
  const clock_profile clock = clock_of(run);
  d.timer = describe_timer(clock);
  d.duration_seconds = run.duration_seconds;
  d.significance = significance_of(repetitions, power);
  d.noise.emplace(context.noise);
  d.budget.emplace();
  if (run.budget) *d.budget = budget_facts(*run.budget, plan);
  if (context.shard) d.shard.emplace(*context.shard);
  if (context.merged) d.merged.emplace(*context.merged);
  return d;
}

// What the run's repetitions are called: the own word of a frame that ran alone (try's rounds).
std::string repetition_noun(const model::document& d) {
  if (d.frames.size() == 1)
    for (const auto& row : frame_results_writers())
      if (row.name == d.frames.begin()->first && row.part.repetition_noun != nullptr)
        return row.part.repetition_noun;
  return "repetition";
}

// The warnings of the run as a whole: DEBUG, smoke test, noise, shard or merge, power.
std::vector<std::string> run_warnings(const model::document& d) {
  std::vector<std::string> warnings;
  if (d.debug_build)
    warnings.push_back("DEBUG build: these numbers measure unoptimised code and mean nothing");
  if (d.config.quick)
    warnings.push_back(
        "SMOKE TEST (--quick): small samples, for checking that the lab works; do not quote "
        "these numbers");
  if (d.noise && *d.noise && (*d.noise)->warning) warnings.push_back(*(*d.noise)->warning);
  if (const auto& shard = d.shard)
    warnings.push_back(fmt::format(
        "SHARD {}/{}: this run measured {} of the whole plan's {} cells; `alloclab merge` joins "
        "the {} shards into one results.json (claims are judged there, from every cell)",
        shard->index, shard->count, shard->cells, shard->plan_cells, shard->count));
  if (d.merged)
    warnings.push_back(fmt::format(
        "MERGED from {} shards, each a run of its own (on its own machine of one type); claims "
        "and comparisons were judged again from the merged cells",
        d.merged->shards.size()));
  if (!d.significance.enough_repetitions)
    warnings.push_back(fmt::format(
        "{} {} too few for the Mann-Whitney U test to reach p < {} (smallest possible p = "
        "{:.3f}); every verdict says too few runs",
        counted(d.config.repetitions, repetition_noun(d)), d.config.repetitions == 1 ? "is" : "are",
        significance_alpha, d.significance.smallest_possible_p));
  return warnings;
}

}  // namespace

std::vector<std::string> collect_warnings(const model::document& d) {
  std::vector<std::string> warnings = run_warnings(d);
  const std::size_t mallocs = d.config.mallocs.size();
  for (const model::workload& w : d.workloads)
    for (const model::cell& c : w.cells) {
      const model::cell_head& h = c.head;
      std::string where = fmt::format("{} / {}", w.name, h.strategy);
      if (mallocs > 1 || h.malloc != "glibc") where += " @ " + h.malloc;
      if (h.status != "ok" && h.status != "not_applicable")
        warnings.push_back(fmt::format("{}: {}{}", where,
                                       h.status == "overflowed" ? "" : h.status + ": ",
                                       h.reason.value_or("")));
      if (h.warning) warnings.push_back(fmt::format("{}: {}", where, *h.warning));
    }
  for (const auto& row : frame_results_writers())
    if (row.part.warnings != nullptr)
      for (std::string& warning : row.part.warnings(d)) warnings.push_back(std::move(warning));
  return warnings;
}

bool test_has_power(std::size_t repetitions) {
  return can_reach_significance(repetitions, repetitions);
}

std::string significance_mark(double p_value, bool power) {
  if (!power) return "?";
  if (p_value < 0.01) return "**";
  if (p_value < significance_alpha) return "*";
  return "n.s.";
}

model::document build_results(const run_plan& plan, const run_records& run,
                              const results_context& context) {
  std::map<std::size_t, cell_records> by_cell;
  for (std::size_t i = 0; i < run.records.size(); ++i)
    by_cell[plan.schedule.at(i).cell].parts.push_back(&run.records[i]);
  for (auto& [cell, rs] : by_cell)
    std::sort(rs.parts.begin(), rs.parts.end(),
              [](const auto* a, const auto* b) { return a->part < b->part; });

  const std::size_t repetitions =
      plan.frames.empty() ? plan.sizes.repetitions : plan.repetitions.at(plan.frames.front());
  const bool power = test_has_power(repetitions);
  model::document results = skeleton(plan, run, context, repetitions, power);
  const frame_results_input in{plan, run, by_cell, power};
  for (const auto& row : frame_results_writers())
    if (row.part.add_results != nullptr) row.part.add_results(in, results);
  simulate::add_simulation(results, context.simulation);
  results.warnings = collect_warnings(results);
  if (results.workloads.empty()) return results;  // no lab workload to judge a claim on (try)
  results.claims = claim_verdicts(results, seed_claims());
  results.published_tables = model::read_json<std::vector<model::published_table>>(
      seed_claims().at("published_tables"), "/published_tables");
  return results;
}

}  // namespace alloclab::lab
