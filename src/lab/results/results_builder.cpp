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
  d.environment.placement = model::read_json<std::optional<model::placement_facts>>(
      context.placement, "/environment/placement");
  const clock_profile clock = clock_of(run);
  d.timer = describe_timer(clock);
  d.duration_seconds = run.duration_seconds;
  d.significance = significance_of(repetitions, power);
  d.noise.emplace(model::read_json<std::optional<model::noise_gate>>(context.noise, "/noise"));
  d.budget.emplace();
  if (run.budget) *d.budget = budget_facts(*run.budget, plan);
  if (!context.shard.is_null())
    d.shard = model::read_json<model::shard_facts>(context.shard, "/shard");
  if (!context.merged.is_null())
    d.merged = model::read_json<model::merge_facts>(context.merged, "/merged");
  return d;
}

// ---- Serve frame: one cell per variant, figures over its fresh server processes ----

// Ratios against the baseline cell, each with a bootstrap interval over repetitions and the
// U test over repetition medians.
void add_comparison(json& cell, const json& baseline, bool power) {
  cell["vs_std"] = nullptr;
  if (cell["timing"].is_null() || baseline["timing"].is_null()) return;
  const auto x = baseline["timing"]["repetition_medians_ns"].get<std::vector<double>>();
  const auto y = cell["timing"]["repetition_medians_ns"].get<std::vector<double>>();
  const mann_whitney_result test = mann_whitney_u(x, y);
  model::comparison c;
  c.intervals.confidence = interval_confidence;
  c.intervals.method =
      "percentile bootstrap over repetitions (each from its cell's own processes): ratio of "
      "medians of the per-repetition figure";
  const auto compare = [&](const char* metric, std::optional<double>& value,
                           std::optional<model::interval>& range) {
    const auto r = estimate_ratio(metric, baseline, cell);
    value = r ? std::optional<double>(r->value) : std::nullopt;
    range = r ? interval_of(r->range) : std::nullopt;
  };
  compare("speedup_p50", c.speedup_p50, c.intervals.speedup_p50);
  compare("speedup_mean", c.speedup_mean, c.intervals.speedup_mean);
  compare("p99_ratio", c.p99_ratio, c.intervals.p99_ratio);
  compare("jitter_ratio", c.jitter_ratio, c.intervals.jitter_ratio);
  compare("cv_ratio", c.cv_ratio, c.intervals.cv_ratio);
  compare("throughput_ratio", c.throughput_ratio, c.intervals.throughput_ratio);
  // Heap-study cells: mean ns per malloc+free pair (NOOP subtracted) against the baseline malloc.
  if (cell.value("ns_per_pair", json()).is_object())
    compare("speedup_ns_per_pair", c.speedup_ns_per_pair.emplace(),
            c.intervals.speedup_ns_per_pair.emplace());
  c.mann_whitney_u = test.u;
  c.p_value = test.p_value;
  c.exact_test = test.exact;
  c.significant = power && test.p_value < significance_alpha;
  c.mark = significance_mark(test.p_value, power);
  cell["vs_std"] = model::write_json(c);
}

}  // namespace

void add_comparisons(json& workload, bool power) {
  const json& wanted = workload["baseline"];
  json* baseline = nullptr;
  for (auto& c : workload["cells"])
    if (c["strategy"] == wanted["strategy"] && c["malloc"] == wanted["malloc"]) baseline = &c;
  for (auto& c : workload["cells"]) {
    if (baseline != nullptr && &c != baseline)
      add_comparison(c, *baseline, power);
    else
      c["vs_std"] = nullptr;
  }
}

std::vector<std::string> collect_warnings(const json& results) {
  std::vector<std::string> warnings;
  if (results.value("debug_build", false))
    warnings.push_back("DEBUG build: these numbers measure unoptimised code and mean nothing");
  if (results.at("config").value("quick", false))
    warnings.push_back(
        "SMOKE TEST (--quick): small samples, for checking that the lab works; do not quote "
        "these numbers");
  const json& noise = results.value("noise", json());
  if (noise.is_object() && noise.value("warning", json()).is_string())
    warnings.push_back(noise.at("warning").get<std::string>());
  if (const json shard = results.value("shard", json()); shard.is_object())
    warnings.push_back(fmt::format(
        "SHARD {}/{}: this run measured {} of the whole plan's {} cells; `alloclab merge` joins "
        "the {} shards into one results.json (claims are judged there, from every cell)",
        shard.at("index").get<std::size_t>(), shard.at("count").get<std::size_t>(),
        shard.at("cells").get<std::size_t>(), shard.at("plan_cells").get<std::size_t>(),
        shard.at("count").get<std::size_t>()));
  if (const json merged = results.value("merged", json()); merged.is_object())
    warnings.push_back(fmt::format(
        "MERGED from {} shards, each a run of its own (on its own machine of one type); claims "
        "and comparisons were judged again from the merged cells",
        merged.at("shards").size()));
  const json& sig = results.at("significance");
  if (!sig.at("enough_repetitions").get<bool>())
    warnings.push_back(
        fmt::format("{} repetitions are too few for the Mann-Whitney U test to reach p < {} "
                    "(smallest possible p = {:.3f}); every verdict is 'open (too few runs)'",
                    results.at("config").at("repetitions").get<std::size_t>(), significance_alpha,
                    sig.at("smallest_possible_p").get<double>()));
  const std::size_t mallocs = results.at("config").value("mallocs", json::array()).size();
  for (const auto& w : results.at("workloads"))
    for (const auto& c : w.at("cells")) {
      const std::string status = c.at("status");
      std::string where = fmt::format("{} / {}", w.at("name").get<std::string>(),
                                      c.at("strategy").get<std::string>());
      if (mallocs > 1 || c.value("malloc", "glibc") != "glibc")
        where += " @ " + c.value("malloc", std::string("glibc"));
      if (status != "ok" && status != "not_applicable")
        warnings.push_back(
            fmt::format("{}: {}{}", where, status == "overflowed" ? "" : status + ": ",
                        c.at("reason").is_string() ? c.at("reason").get<std::string>() : ""));
      if (c.at("warning").is_string())
        warnings.push_back(fmt::format("{}: {}", where, c.at("warning").get<std::string>()));
    }
  static const json no_workloads = json::array();
  const bool served = results.contains("serve") && results.at("serve").is_object();
  for (const auto& w : served ? results.at("serve").at("workloads") : no_workloads)
    for (const auto& c : w.at("cells")) {
      const std::string where =
          fmt::format("serve {} / {} @ {}", w.at("name").get<std::string>(),
                      c.at("strategy").get<std::string>(), c.at("malloc").get<std::string>());
      if (c.at("status") != "ok")
        warnings.push_back(
            fmt::format("{}: {}: {}", where, c.at("status").get<std::string>(),
                        c.at("reason").is_string() ? c.at("reason").get<std::string>() : ""));
      for (const char* generator : {"hey", "wrk"})
        if (c.at(generator).is_object() && c.at(generator).at("errors").get<std::uint64_t>() > 0)
          warnings.push_back(fmt::format("{}: {} saw {} errors", where, generator,
                                         c.at(generator).at("errors").get<std::uint64_t>()));
    }
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

json build_results(const run_plan& plan, const run_records& run, const results_context& context) {
  std::map<std::size_t, cell_records> by_cell;
  for (std::size_t i = 0; i < run.records.size(); ++i)
    by_cell[plan.schedule.at(i).cell].parts.push_back(&run.records[i]);
  for (auto& [cell, rs] : by_cell)
    std::sort(rs.parts.begin(), rs.parts.end(),
              [](const auto* a, const auto* b) { return a->part < b->part; });

  const std::size_t repetitions =
      plan.frames.empty() ? plan.sizes.repetitions : plan.repetitions.at(plan.frames.front());
  const bool power = test_has_power(repetitions);
  const model::document head = skeleton(plan, run, context, repetitions, power);
  json results = model::to_json(head);
  const frame_results_input in{plan, run, by_cell, power};
  for (const auto& row : frame_results_writers())
    if (row.part.add_results != nullptr) row.part.add_results(in, results);
  simulate::add_simulation(results, context.simulation);
  results["warnings"] = collect_warnings(results);
  results["claims"] = judge_claims(results, seed_claims());
  results["published_tables"] = seed_claims().at("published_tables");
  return results;
}

}  // namespace alloclab::lab
