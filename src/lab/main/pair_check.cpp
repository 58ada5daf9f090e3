#include "main/pair_check.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "main/frame_registry.hpp"
#include "lockstep/enrolment.hpp"
#include "lockstep/ring.hpp"
#include "plan/budget.hpp"
#include "plan/request.hpp"
#include "schedule/executor.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/tracked_comparisons.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

struct check_spec {
  std::string workload;
  std::vector<std::string> mallocs;  // empty: glibc
  std::size_t runs = 8;              // the most ring runs
  double inject_percent = 0;
  std::uint64_t seed = 1;
};

check_spec read_spec(const char* text) {
  const json j = json::parse(text);
  check_spec s;
  s.workload = j.at("workload");
  s.runs = j.value("runs", s.runs);
  s.inject_percent = j.value("inject_percent", s.inject_percent);
  s.seed = j.value("seed", s.seed);
  s.mallocs = j.value("mallocs", s.mallocs);
  if (s.runs < 2 || s.runs > 64) throw usage_error("runs must be 2 to 64");
  return s;
}

json interval_json(const sequential_ratio& r) {
  const ratio_verdict v = judge_ratio_interval(r.low, r.high, default_equivalence_margin);
  return {{"value", r.value}, {"low", r.low}, {"high", r.high}, {"verdict", to_string(v)}};
}

// The workload's baseline cell (std @ glibc; malloc @ glibc in the heap frame) and its copy, one
// lockstep ring run after another.
class pair_check {
 public:
  explicit pair_check(const check_spec& spec) : spec_(spec), plan_(plan_for(spec)) {
    const bool batch_only = std::all_of(plan_.cells.begin(), plan_.cells.end(),
                                        [](const cell_spec& c) { return c.frame == frame::batch; });
    if (spec.inject_percent > 0 && !batch_only)
      throw usage_error("inject_percent needs a batch workload (its worker adds the cost)");
    const std::vector<tracked_comparison> vs_baseline =
        planned_comparisons(plan_, json{{"claims", json::array()}});
    if (vs_baseline.empty()) throw usage_error("the workload has no cell to compare");
    std_cell_ = vs_baseline.front().base;
    figure_ = vs_baseline.front().metric;
    repetitions_ = budget_cells(plan_).at(std_cell_).repetitions;
    executors_ =
        std::make_unique<executor_set>(plan_, make_frame_executor, [](const schedule_progress&) {});
  }

  // One ring run of every cell of the workload plus the copy.
  void run_once() {
    const std::size_t run = paired_.size(), members_count = plan_.cells.size() + 1;
    std::vector<measurement_record> records(members_count);
    std::vector<std::function<void()>> members;
    for (std::size_t i = 0; i < members_count; ++i)
      members.emplace_back([&, i] {
        const bool copy = i == plan_.cells.size();
        if (copy && spec_.inject_percent > 0)
          lockstep::thread_enrolment().extra_env.emplace_back("ALLOCLAB_INJECT_PERCENT",
                                                              std::to_string(spec_.inject_percent));
        const task t{copy ? std_cell_ : i, 2 * run + (copy ? 1 : 0), repetitions_,
                     spec_.seed + run};
        records[i] = executors_->run(plan_, t);
      });
    lockstep::run_ring(members, {lockstep::ring_cpu(), spec_.seed * 1000 + run});
    const std::vector<double> a = readings_of(records[std_cell_], figure_),
                              b = readings_of(records.back(), figure_);
    if (a.empty() || b.empty())
      throw std::runtime_error("the baseline cell or its copy has no number");
    std::vector<double> ratios;
    for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k)
      if (a[k] > 0 && b[k] > 0) ratios.push_back(a[k] / b[k]);  // as budget_state::add_ring
    paired_.push_back(ratios);
    std_side_.push_back(positive(a));
    copy_side_.push_back(positive(b));
  }

  sequential_ratio paired(const stop_rule& rule) const {
    return compare_paired(paired_spread(paired_), {}, rule);
  }
  sequential_ratio unpaired(const stop_rule& rule) const {
    return compare_levels(spread_of(std_side_), {}, spread_of(copy_side_), {}, rule);
  }
  std::size_t runs() const { return paired_.size(); }
  const figures_by_process& ratios() const { return paired_; }
  std::size_t members() const { return plan_.cells.size() + 1; }
  const std::string& figure() const { return figure_; }

 private:
  // A heap figure lost in its NOOP run's noise reads at or below zero: no level of it exists.
  static std::vector<double> positive(std::vector<double> readings) {
    readings.erase(
        std::remove_if(readings.begin(), readings.end(), [](double r) { return r <= 0; }),
        readings.end());
    return readings;
  }

  static run_plan plan_for(const check_spec& spec) {
    run_request request;
    request.workloads = {spec.workload};
    request.mallocs = spec.mallocs;
    request.budget = std::string("5m");
    request.placement_check = placement_check_mode::never;
    request.seed = spec.seed;
    return make_plan(request, false);
  }

  check_spec spec_;
  run_plan plan_;
  std::size_t std_cell_ = 0, repetitions_ = 0;
  std::string figure_;
  std::unique_ptr<executor_set> executors_;
  figures_by_process paired_, std_side_, copy_side_;
};

// A design's answer: its interval at the first look that decided, or at the last.
struct design_answer {
  sequential_ratio ratio;
  std::size_t runs = 0;
  bool decided = false;
};

void look_at(design_answer& a, const sequential_ratio& r, std::size_t runs) {
  if (a.decided) return;
  a.ratio = r;
  a.runs = runs;
  a.decided =
      judge_ratio_interval(r.low, r.high, default_equivalence_margin) != ratio_verdict::open;
}

json answer_json(const design_answer& a) {
  json j = interval_json(a.ratio);
  j["runs"] = a.runs;
  return j;
}

}  // namespace

int pair_check_main(const char* spec_json, std::ostream& out, std::ostream& err) {
  try {
    const check_spec spec = read_spec(spec_json);
    pair_check check(spec);
    // Looks as a budgeted run's: 2 ring runs, then grown by half to the most, alpha spent over
    // the looks (stats/sequential.hpp).
    std::vector<std::size_t> looks{2};
    while (looks.back() < spec.runs) looks.push_back(std::min(spec.runs, looks.back() * 3 / 2 + 1));
    const stop_rule rule = rule_with_looks(looks.size());
    design_answer paired, unpaired;
    for (std::size_t k = 0; k < looks.size() && !(paired.decided && unpaired.decided); ++k) {
      while (check.runs() < looks[k]) check.run_once();
      look_at(paired, check.paired(rule.at_look(k + 1)), check.runs());
      look_at(unpaired, check.unpaired(rule.at_look(k + 1)), check.runs());
    }
    out << json{{"workload", spec.workload},      {"most_runs", spec.runs},
                {"looks", looks.size()},          {"members", check.members()},
                {"figure", check.figure()},       {"inject_percent", spec.inject_percent},
                {"paired", answer_json(paired)},  {"unpaired", answer_json(unpaired)},
                {"ratios_by_run", check.ratios()}}
               .dump()
        << "\n";
    return 0;
  } catch (const usage_error& e) {
    err << "alloclab __pair-check: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "alloclab __pair-check: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace alloclab::lab
