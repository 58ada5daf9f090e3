#include "compare/paired_compare.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include <fmt/format.h>

#include <alloclab/build_info.hpp>

#include "compare/build_protocol.hpp"
#include "lockstep/enrolment.hpp"
#include "lockstep/ring.hpp"
#include "measure/build_guard.hpp"
#include "plan/budget.hpp"
#include "io/atomic_write.hpp"
#include "results/budget_section.hpp"
#include "results/cell_parts.hpp"
#include "results/environment.hpp"
#include "schedule/executor.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/tracked_comparisons.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using paired_clock = std::chrono::steady_clock;

constexpr const char* pair_words =
    "one cell of both builds in one lockstep ring run: each side in a fresh worker process of its "
    "own binary, the ring's token letting one slice (one timed repetition, its warm-up first) run "
    "at a time in a fresh random order each cycle, so slice k of the baseline and slice k of the "
    "candidate met the machine in the same state; a run's reading is the median over k of "
    "baseline p50 ÷ candidate p50, the interval a Student-t over the runs";

// One cell of both builds.
struct paired_cell_state {
  std::size_t cell = 0;                         // index into the plan's cells
  figures_by_process ratios;                    // baseline ÷ candidate per slice, by ring run
  std::vector<double> base_p50, candidate_p50;  // each ring run's median p50, per side
  model::paired_side_figure base{"ok", {}, {}, 0}, candidate{"ok", {}, {}, 0};
  sequential_ratio ratio;
  ratio_verdict verdict = ratio_verdict::open;
  double confidence = 0;
  bool measurable() const { return base.status == "ok" && candidate.status == "ok"; }
  bool open() const { return measurable() && verdict == ratio_verdict::open; }
};

// A side's record of one ring run: its per-slice p50s, or empty with the side marked.
std::vector<double> side_p50s(const measurement_record& r, model::paired_side_figure& side) {
  std::vector<double> p50 = p50_by_repetition(r);
  if (r.status == "ok" && !p50.empty()) return p50;
  side.status = r.status == "ok" ? "failed" : r.status;
  side.reason = r.reason.empty() ? "the worker printed no p50" : r.reason;
  return {};
}

model::paired_build checked_build(const std::string& binary, const char* option,
                                  const build_protocol& ours) {
  const build_protocol theirs = ask_protocol(binary);
  if (const std::string why = protocol_mismatch(ours, theirs); !why.empty())
    throw usage_error(fmt::format("{} '{}' speaks {}; both builds must speak this alloclab's",
                                  option, binary, why));
  model::paired_build b;
  b.binary = binary;
  b.git_revision = theirs.revision;
  b.worker_protocol = theirs.worker;
  b.lockstep_protocol = theirs.lockstep;
  return b;
}

run_plan paired_plan(const paired_request& request) {
  run_request r = request.run;
  r.frames = {to_string(frame::batch)};
  r.placement_check = placement_check_mode::never;
  r.simulate = false;
  run_plan plan = make_plan(r, alloclab::build::sanitized);
  if (plan.sizes.budget_seconds <= 0)
    throw usage_error("compare --paired: --budget must be more than 0 (the stop rule spends it)");
  return plan;
}

// The ring runs of a paired comparison, grown look by look.
class paired_session {
 public:
  paired_session(const paired_request& request, const run_plan& plan,
                 const executor_factory& make_executor,
                 const std::function<void(const std::string&)>& note)
      : request_(request), plan_(plan), note_(note), setup_(budget_cells(plan)) {
    executors_ = std::make_unique<executor_set>(
        plan_, make_executor, [this](const schedule_progress& p) { note_(p.what); });
    for (std::size_t i = 0; i < plan_.cells.size(); ++i) {
      cells_.push_back({});
      cells_.back().cell = i;
      by_workload_[plan_.cells[i].workload].push_back(i);
    }
  }

  model::paired_builds run();

 private:
  double elapsed() const {
    return std::chrono::duration<double>(paired_clock::now() - start_).count();
  }
  std::vector<std::size_t> open_cells(const std::string& workload) const {
    std::vector<std::size_t> open;
    for (std::size_t i : by_workload_.at(workload))
      if (cells_[i].open()) open.push_back(i);
    return open;
  }
  std::size_t open_count() const {
    return static_cast<std::size_t>(std::count_if(
        cells_.begin(), cells_.end(), [](const paired_cell_state& s) { return s.open(); }));
  }
  // Seconds one ring run of `workload`'s open cells is expected to take.
  double ring_estimate(const std::string& workload) const {
    const auto found = member_seconds_.find(workload);
    const double per_member = found == member_seconds_.end() ? 0 : found->second;
    return per_member * 2 * static_cast<double>(open_cells(workload).size());
  }
  bool affords(std::size_t runs) const;
  bool grow_to(std::size_t runs, bool within_budget);
  void ring_run(const std::string& workload);
  void take(paired_cell_state& s, const measurement_record& base,
            const measurement_record& candidate);
  void judge(const stop_rule& rule);
  model::paired_cell cell_facts(const paired_cell_state& s) const;

  const paired_request& request_;
  const run_plan& plan_;
  std::function<void(const std::string&)> note_;
  std::vector<budget_cell> setup_;
  std::unique_ptr<executor_set> executors_;
  std::vector<paired_cell_state> cells_;
  std::map<std::string, std::vector<std::size_t>> by_workload_;
  std::map<std::string, std::size_t> runs_;
  std::map<std::string, double> member_seconds_;  // a ring member's seconds, mean so far
  std::size_t processes_ = 0;
  paired_clock::time_point start_ = paired_clock::now();
};

void paired_session::ring_run(const std::string& workload) {
  const std::vector<std::size_t> open = open_cells(workload);
  const std::size_t run = runs_[workload]++;
  note_(fmt::format("{}: ring run {} ({} cells x 2 builds)", workload, run + 1, open.size()));
  std::vector<measurement_record> records(2 * open.size());
  std::vector<std::function<void()>> members;
  for (std::size_t m = 0; m < records.size(); ++m)
    members.emplace_back([&, m] {
      const std::size_t cell = cells_[open[m / 2]].cell;
      const bool candidate = m % 2 == 1;
      lockstep::thread_enrolment().program =
          candidate ? request_.candidate_binary : request_.baseline_binary;
      const task t{cell, 2 * run + (candidate ? 1 : 0), setup_.at(cell).repetitions,
                   plan_.sizes.seed + run};
      records[m] = executors_->run(plan_, t);
    });
  const paired_clock::time_point started = paired_clock::now();
  const lockstep::ring_account account =
      lockstep::run_ring(members, {lockstep::ring_cpu(), plan_.sizes.seed * 1000 + run});
  const double seconds = std::chrono::duration<double>(paired_clock::now() - started).count();
  double& mean = member_seconds_[workload];
  mean = run == 0
             ? seconds / static_cast<double>(records.size())
             : (mean * static_cast<double>(run) + seconds / static_cast<double>(records.size())) /
                   static_cast<double>(run + 1);
  processes_ += records.size();
  for (std::size_t k = 0; k < open.size(); ++k) {
    cells_[open[k]].base.slices += account.slices.at(2 * k);
    cells_[open[k]].candidate.slices += account.slices.at(2 * k + 1);
    take(cells_[open[k]], records[2 * k], records[2 * k + 1]);
  }
}

void paired_session::take(paired_cell_state& s, const measurement_record& base,
                          const measurement_record& candidate) {
  const std::vector<double> a = side_p50s(base, s.base), b = side_p50s(candidate, s.candidate);
  if (a.empty() || b.empty()) return;
  std::vector<double> ratios;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) ratios.push_back(a[k] / b[k]);
  s.ratios.push_back(std::move(ratios));
  s.base_p50.push_back(median_of(a));
  s.candidate_p50.push_back(median_of(b));
}

// Each open cell at this look: its paired interval, moderated toward its workload's other cells
// (leave-one-out), and the one verdict rule with the margin.
void paired_session::judge(const stop_rule& rule) {
  const double margin = request_.margin_percent / 100;
  for (const auto& [workload, members] : by_workload_) {
    std::map<std::size_t, process_spread> spreads;
    for (std::size_t i : members)
      if (cells_[i].measurable() && !cells_[i].ratios.empty())
        spreads[i] = paired_spread(cells_[i].ratios);
    for (auto& [i, spread] : spreads) {
      paired_cell_state& s = cells_[i];
      if (!s.open()) continue;
      std::vector<process_spread> others;
      for (const auto& [j, other] : spreads)
        if (j != i) others.push_back(other);
      s.ratio = compare_paired(spread, pool_between(others), rule);
      s.verdict = judge_ratio_interval(s.ratio.low, s.ratio.high, margin);
      s.confidence = rule.confidence();
    }
  }
}

bool paired_session::affords(std::size_t runs) const {
  double seconds = 0;
  for (const auto& [workload, done] : runs_)
    if (runs > done) seconds += static_cast<double>(runs - done) * ring_estimate(workload);
  return elapsed() + seconds <= plan_.sizes.budget_seconds;
}

// Ring runs until every workload with an open cell has `runs`; false when the budget stopped it.
bool paired_session::grow_to(std::size_t runs, bool within_budget) {
  for (const auto& [workload, members] : by_workload_)
    while (runs_[workload] < runs && !open_cells(workload).empty()) {
      if (within_budget && elapsed() + ring_estimate(workload) > plan_.sizes.budget_seconds)
        return false;
      ring_run(workload);
    }
  return true;
}

model::paired_builds paired_session::run() {
  model::paired_builds out;
  const std::size_t first = 2, most = request_.most_runs;
  const std::size_t looks = looks_to_reach(first, most);
  const stop_rule rule = rule_with_looks(looks);
  out.stopped = "the rule's last look (--runs)";
  for (std::size_t k = 1; k <= looks; ++k) {
    const std::size_t before = processes_;
    // Look k stands on the first runs grown k - 1 times: 2, 3, 5, 8, ...
    const bool funded = grow_to(processes_after(first, most, k - 1), k > 1);
    const bool last = k == looks || !funded || !affords(processes_after(first, most, k));
    judge(last ? rule.at_look(k).spending_the_rest() : rule.at_look(k));
    model::budget_round round;
    round.look = k;
    round.processes = processes_ - before;
    round.elapsed_seconds = elapsed();
    round.open = open_count();
    round.decided = static_cast<std::size_t>(
                        std::count_if(cells_.begin(), cells_.end(),
                                      [](const paired_cell_state& s) { return s.measurable(); })) -
                    round.open;
    out.rounds.push_back(round);
    if (round.open == 0) {
      out.stopped = "every comparison decided";
      break;
    }
    if (last) {
      if (k < looks) out.stopped = "the budget spent";
      break;
    }
  }
  out.stop_rule = stop_rule_facts(rule);
  out.stop_rule.simulation =
      "paired data: tests/lab/paired_simulation_test.cpp; A/A and injected effects on this "
      "machine: bench/lockstep_validation.py --builds (docs/ci-gate.md)";
  out.most_runs = most;
  out.margin = request_.margin_percent / 100;
  out.budget_seconds = plan_.sizes.budget_seconds;
  if (request_.fail_above_percent >= 0) out.fail_above_percent = request_.fail_above_percent;
  out.pair = pair_words;
  for (const paired_cell_state& s : cells_) out.cells.push_back(cell_facts(s));
  out.regressions = static_cast<std::size_t>(
      std::count_if(out.cells.begin(), out.cells.end(),
                    [](const model::paired_cell& c) { return c.regression; }));
  out.spent_seconds = elapsed();
  return out;
}

model::paired_cell paired_session::cell_facts(const paired_cell_state& s) const {
  const cell_spec& spec = plan_.cells.at(s.cell);
  const double margin = request_.margin_percent / 100;
  model::paired_cell out;
  model::budget_comparison& c = out.comparison;
  c.id = fmt::format("build {} / {} @ {}", spec.workload, spec.strategy, spec.malloc.label);
  c.kind = "build";
  c.metric = "p50";
  c.base = c.candidate = budget_cell_name_of(spec);
  c.boundaries = {1 / (1 + margin), 1.0, 1 + margin};
  if (s.ratio.value > 0) c.value = s.ratio.value;
  if (s.ratio.bounded()) {
    c.low = s.ratio.low;
    c.high = s.ratio.high;
    c.df = s.ratio.df;
  }
  c.processes = {s.ratios.size(), s.ratios.size()};
  c.state = !s.measurable() ? "unmeasurable" : s.open() ? "open" : "decided";
  c.candidates.emplace(1);
  if (s.confidence > 0) c.confidence.emplace(s.confidence);
  c.paired_runs.emplace(s.ratios.size());
  c.margin.emplace(margin);
  c.verdict.emplace(s.measurable() ? to_string(s.verdict) : "unmeasurable");
  out.baseline = s.base;
  out.candidate = s.candidate;
  if (!s.base_p50.empty()) out.baseline.p50_ns = median_of(s.base_p50);
  if (!s.candidate_p50.empty()) out.candidate.p50_ns = median_of(s.candidate_p50);
  if (s.ratio.value > 0 && s.measurable()) out.change_percent = (1 / s.ratio.value - 1) * 100;
  out.regression = s.measurable() && s.verdict == ratio_verdict::favours_base &&
                   request_.fail_above_percent >= 0 && out.change_percent &&
                   *out.change_percent > request_.fail_above_percent;
  return out;
}

model::document paired_document(const paired_request& request, const run_plan& plan,
                                model::paired_builds paired, bool debug) {
  model::document d;
  d.created_utc = utc_now("%Y-%m-%dT%H:%M:%SZ");
  d.command = request.run.command_line;
  d.debug_build = debug;
  d.config.workloads = plan.workloads.lab;
  d.config.strategies = plan.strategies;
  for (const malloc_choice& m : plan.mallocs) d.config.mallocs.push_back(m.label);
  d.config.seed = plan.sizes.seed;
  d.config.cell_timeout_seconds = std::chrono::duration<double>(plan.cell_timeout).count();
  d.environment = describe_environment(current_build());
  d.duration_seconds = paired.spent_seconds;
  d.paired.emplace(std::move(paired));
  return d;
}

}  // namespace

std::vector<double> p50_by_repetition(const measurement_record& r) {
  return readings_of(r, "p50");
}

model::document run_paired_compare(const paired_request& request,
                                   const executor_factory& make_executor,
                                   const std::function<void(const std::string&)>& note) {
  if (request.most_runs < 2 || request.most_runs > 64)
    throw usage_error("compare --paired: --runs must be 2 to 64");
  if (!(request.margin_percent > 0 && request.margin_percent < 100))
    throw usage_error("compare --paired: --margin must be more than 0 and less than 100");
  const build_protocol ours = this_protocol();
  model::paired_build baseline = checked_build(request.baseline_binary, "--baseline-binary", ours);
  model::paired_build candidate =
      checked_build(request.candidate_binary, "--candidate-binary", ours);
  const run_plan plan = paired_plan(request);
  const bool debug = stamp_debug_or_refuse(request.run.allow_debug);
  paired_session session(request, plan, make_executor, note);
  model::paired_builds paired = session.run();
  paired.baseline = std::move(baseline);
  paired.candidate = std::move(candidate);
  return paired_document(request, plan, std::move(paired), debug);
}

}  // namespace alloclab::lab
