#include "simulate/queue.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "simulate/events.hpp"
#include "simulate/frame_simulation.hpp"
#include "strategies/strategy.hpp"

namespace alloclab::lab::simulate {

namespace {

// The highest-numbered online CPU other than CPU 0 that this thread may be pinned to (the
// timing's own pinning, if the thread inherited it, is not what limits it). nullopt on a
// one-CPU machine: the simulation then shares the timing's CPU.
std::optional<int> pin_to_last_cpu() {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = std::min<long>(online, CPU_SETSIZE) - 1; cpu >= 1; --cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<int>(cpu), &one);
    if (::pthread_setaffinity_np(::pthread_self(), sizeof one, &one) == 0)
      return static_cast<int>(cpu);
  }
  return std::nullopt;
}

bool is_baseline(const run_plan& plan, const cell_spec& c) {
  const bool first_malloc = !plan.mallocs.empty() && c.malloc.label == plan.mallocs.front().label;
  return first_malloc && (c.frame == frame::heap || c.strategy == baseline_strategy);
}

// The simulation hook of frame `f`'s row, or null.
simulation_function simulation_of(frame f) {
  for (const auto& row : frame_simulations())
    if (row.id == f) return row.part.simulation;
  return nullptr;
}

std::string describe(const cell_spec& c) {
  return fmt::format("{} / {} @ {}", c.workload, c.strategy, c.malloc.label);
}

}  // namespace

std::vector<queued_cell> simulation_order(const run_plan& plan) {
  struct keyed {
    bool baseline;
    std::size_t turn, cell;
  };
  std::vector<keyed> keys;
  std::map<std::string, std::size_t> seen;  // cells queued per workload so far
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    const cell_spec& c = plan.cells[i];
    if (c.copy_cliff_removed || simulation_of(c.frame) == nullptr) continue;
    const bool baseline = is_baseline(plan, c);
    keys.push_back({baseline, baseline ? 0 : seen[c.workload]++, i});
  }
  std::stable_sort(keys.begin(), keys.end(), [](const keyed& a, const keyed& b) {
    return a.baseline != b.baseline ? a.baseline : a.turn < b.turn;
  });
  std::vector<queued_cell> order;
  for (const keyed& k : keys) {
    const cell_spec& c = plan.cells[k.cell];
    order.push_back({k.cell, simulation_of(c.frame)(plan, c)});
  }
  return order;
}

std::optional<queue_limits> simulation_limits(const run_request& request, const run_plan& plan,
                                              std::chrono::steady_clock::time_point started) {
  const bool budgeted = plan.sizes.budget_seconds > 0;
  if (!request.simulate.value_or(budgeted)) return std::nullopt;
  if (!budgeted) return queue_limits{};
  const auto budget = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(plan.sizes.budget_seconds));
  return queue_limits{started + budget, true};
}

simulation_queue::simulation_queue(const run_plan& plan, queue_limits limits)
    : plan_(plan), limits_(limits), order_(simulation_order(plan)) {
  started_ = clock::now();
  for (const queued_cell& q : order_) {
    simulated_cell s{q.cell, {}};
    s.cost.status = "not_simulated";
    s.cost.reason = q.worker.not_simulated.empty() ? "the run ended first" : q.worker.not_simulated;
    done_.push_back(std::move(s));
  }
  thread_ = std::thread([this] { run(); });
}

simulation_queue::~simulation_queue() {
  stopping_ = true;  // an interrupted run waits for nothing
  join();
}

void simulation_queue::join() {
  if (limits_.stop_with_timing) stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void simulation_queue::run() {
  cpu_ = pin_to_last_cpu();
  tools_ = find_tools();
  if (!tools_.missing.empty())
    for (std::size_t i = 0; i < order_.size(); ++i)
      if (order_[i].worker.not_simulated.empty()) done_[i].cost.reason = tools_.missing;
  for (std::size_t i = 0; i < order_.size() && tools_.missing.empty(); ++i) {
    if (!workers_.wait_while_paused(stopping_) || clock::now() >= limits_.deadline) break;
    const queued_cell& q = order_[i];
    if (!q.worker.not_simulated.empty()) continue;
    const cell_spec& c = plan_.cells.at(q.cell);
    try {
      done_[i].cost = simulate_cell({q.worker.args, environment_for(c.malloc), limits_.deadline,
                                     &stopping_, workers_.tracker()},
                                    tools_.tools);
    } catch (const std::exception& e) {  // the malloc's environment: a library gone since
      done_[i].cost.status = "failed";
      done_[i].cost.reason = e.what();
    }
  }
  seconds_ = std::chrono::duration<double>(clock::now() - started_).count();
}

run_simulation simulation_queue::finish() {
  join();
  run_simulation simulation;
  model::simulation_facts& facts = simulation.facts;
  facts.tool = fmt::format("callgrind ({}):",
                           tools_.valgrind_version.empty() ? "valgrind" : tools_.valgrind_version);
  for (const std::string& option : callgrind_options("FILE")) facts.tool += " " + option;
  facts.caches = simulated_caches();
  facts.formula = cost_formula();
  facts.l1_hit_weight = default_weights.l1_hit;
  facts.ll_hit_weight = default_weights.ll_hit;
  facts.memory_weight = default_weights.memory;
  facts.cpu = cpu_;
  facts.cells_planned = done_.size();
  facts.seconds = seconds_;
  facts.pauses = workers_.pauses();
  facts.paused_seconds = workers_.paused_seconds();
  for (const simulated_cell& s : done_) {
    const cell_spec& c = plan_.cells.at(s.cell);
    if (s.cost.status == "ok")
      ++facts.cells_simulated;
    else
      facts.not_simulated.push_back(
          fmt::format("{}: {} ({})", describe(c), s.cost.status, s.cost.reason.value_or("")));
    simulation.cells.push_back({c.workload, c.strategy, c.malloc.label, s.cost});
  }
  return simulation;
}

}  // namespace alloclab::lab::simulate
