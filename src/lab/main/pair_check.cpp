#include "main/pair_check.hpp"

#include <algorithm>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frames/frame_table.hpp"
#include "lockstep/enrolment.hpp"
#include "lockstep/ring.hpp"
#include "plan/budget.hpp"
#include "plan/request.hpp"
#include "schedule/executor.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/tracked_comparisons.hpp"
#include "stats/decision.hpp"
#include "stats/sequential.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

struct check_spec {
  std::string workload;
  std::size_t runs = 4;
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
  if (s.runs < 2 || s.runs > 64) throw usage_error("runs must be 2 to 64");
  return s;
}

json interval_json(const sequential_ratio& r) {
  const ratio_verdict v = judge_ratio_interval(r.low, r.high, default_equivalence_margin);
  return {{"value", r.value}, {"low", r.low}, {"high", r.high}, {"verdict", to_string(v)}};
}

// The p50 per repetition of a record (empty when it has no number).
std::vector<double> p50s(const measurement_record& r) {
  const auto processes = figures_of(r);
  if (processes.size() != 1) return {};
  const auto found = processes.front().find("p50");
  return found == processes.front().end() ? std::vector<double>{} : found->second;
}

}  // namespace

int pair_check_main(const char* spec_json, std::ostream& out, std::ostream& err) {
  try {
    const check_spec spec = read_spec(spec_json);
    run_request request;
    request.workloads = {spec.workload};
    request.budget = std::string("5m");
    request.placement_check = placement_check_mode::never;
    request.seed = spec.seed;
    run_plan plan = make_plan(request, false);
    const auto base = std::find_if(plan.cells.begin(), plan.cells.end(), [](const cell_spec& c) {
      return c.strategy == baseline_strategy;
    });
    if (base == plan.cells.end()) throw usage_error("the workload has no std cell");
    const std::size_t std_cell = static_cast<std::size_t>(base - plan.cells.begin());
    executor_set executors(plan, make_frame_executor, [](const schedule_progress&) {});
    const std::size_t repetitions = budget_cells(plan).at(std_cell).repetitions;
    figures_by_process paired, std_side, copy_side;
    for (std::size_t run = 0; run < spec.runs; ++run) {
      std::vector<measurement_record> records(plan.cells.size() + 1);
      std::vector<std::function<void()>> members;
      for (std::size_t i = 0; i <= plan.cells.size(); ++i)
        members.emplace_back([&, i] {
          const bool copy = i == plan.cells.size();
          if (copy && spec.inject_percent > 0)
            lockstep::thread_enrolment().extra_env.emplace_back(
                "ALLOCLAB_INJECT_PERCENT", std::to_string(spec.inject_percent));
          const task t{copy ? std_cell : i, 2 * run + (copy ? 1 : 0), repetitions, spec.seed + run};
          records[i] = executors.run(plan, t);
        });
      lockstep::run_ring(members, {lockstep::ring_cpu(), spec.seed * 1000 + run});
      const std::vector<double> a = p50s(records[std_cell]), b = p50s(records.back());
      if (a.empty() || b.empty())
        throw std::runtime_error("the std cell or its copy has no number");
      std::vector<double> ratios;
      for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) ratios.push_back(a[k] / b[k]);
      paired.push_back(ratios);
      std_side.push_back(a);
      copy_side.push_back(b);
    }
    const stop_rule rule = rule_with_looks(1);
    out << json{{"workload", spec.workload},
                {"runs", spec.runs},
                {"members", plan.cells.size() + 1},
                {"inject_percent", spec.inject_percent},
                {"paired", interval_json(compare_paired(spread_of(paired), {}, rule))},
                {"unpaired", interval_json(compare_levels(spread_of(std_side), {},
                                                          spread_of(copy_side), {}, rule))}}
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
