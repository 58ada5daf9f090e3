#include "plan/budget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "plan/budget_reserve.hpp"
#include "plan/frame_planner.hpp"

namespace alloclab::lab {

double parse_budget(const std::string& text) {
  const auto bad = [&text] {
    return usage_error(fmt::format(
        "--budget '{}' is not a duration: a number with s, m or h (e.g. 5m, 90s, 1h30m), or 0 "
        "for the fixed plan",
        text));
  };
  double seconds = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = at;
    while (end < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '.'))
      ++end;
    if (end == at) throw bad();
    double number = 0;
    try {
      number = std::stod(text.substr(at, end - at));
    } catch (const std::exception&) {
      throw bad();
    }
    const char unit = end < text.size() ? text[end] : 's';
    const double scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : -1;
    if (scale < 0 || (end == text.size() && at != 0)) throw bad();  // "1m30": say the unit
    seconds += number * scale;
    at = end == text.size() ? end : end + 1;
  }
  if (text.empty() || !std::isfinite(seconds) || seconds > 7 * 86400) throw bad();
  if (seconds > 0 && seconds < smallest_budget_seconds)
    throw usage_error(fmt::format(
        "--budget '{}' is under the smallest budget, {:g}s (and {:g} s of any budget are kept "
        "for writing the results), or 0 for the fixed plan",
        text, smallest_budget_seconds, results_reserve_seconds));
  return seconds;
}

std::string budget_line(double seconds) {
  const double measuring = seconds - results_reserve_seconds;
  if (measuring < 1)
    return fmt::format(
        "budget {:g} s: within the {:g} s kept for writing the results, so each cell gets its "
        "first process only",
        seconds, results_reserve_seconds);
  return fmt::format(
      "budget {:g} s: about {:g} s of measuring ({:g} s of it are kept for writing the results); "
      "each cell's first process runs whatever the budget",
      seconds, std::floor(measuring), results_reserve_seconds);
}

double resolve_budget(const run_request& r, const std::vector<frame>& frames) {
  const bool sized = r.iterations || r.repetitions || r.processes || r.quick;
  const bool stop_rule_frames =
      std::all_of(frames.begin(), frames.end(), [](frame f) { return planner_of(f).budgeted; });
  if (!r.budget)
    return r.full || sized || !stop_rule_frames || frames.empty() ? 0 : default_budget_seconds;
  const double seconds = parse_budget(*r.budget);
  if (seconds > 0 && r.full) throw usage_error("--budget and --full contradict each other");
  if (seconds > 0 && sized)
    throw usage_error(
        "--budget sizes the run by time: drop --iterations, --repetitions, --processes and "
        "--quick, or pass --budget 0 for a fixed plan");
  if (seconds > 0 && !stop_rule_frames)
    throw usage_error(
        "--budget needs a stop rule, which only the batch, heap and serve frames have; use "
        "--budget 0 with the memory frame");
  return seconds;
}

void apply_budget_sizes(measurement_sizes& s, const run_request& r) {
  s.repetition_ms = r.repetition_ms.value_or(default_repetition_ms);
  if (!std::isfinite(s.repetition_ms) || s.repetition_ms < 0.1 || s.repetition_ms > 10000)
    throw usage_error(
        fmt::format("--repetition-time {} is not a number of ms in [0.1, 10000]", s.repetition_ms));
  const budget_cell batch;
  s.samples_per_repetition = max_samples_per_repetition;
  s.processes = batch.first_processes;
  s.repetitions = batch.first_processes * batch.repetitions;
  s.max_processes = max_processes_for(s.budget_seconds);
}

std::size_t processes_after(std::size_t first, std::size_t most, std::size_t looks) {
  std::size_t processes = first;
  for (std::size_t k = 0; k < looks && processes < most; ++k) processes += (processes + 1) / 2;
  return std::min(processes, most);
}

std::size_t looks_to_reach(std::size_t first, std::size_t most) {
  std::size_t looks = 1;
  while (processes_after(first, most, looks - 1) < most) ++looks;
  return looks;
}

rest_of_budget plan_after_first_round(double first_round_seconds, double seconds_left,
                                      std::size_t first_processes) {
  rest_of_budget r;
  const double round_seconds = later_round_share * std::max(first_round_seconds, 1e-9);
  const double affordable = std::max(0.0, seconds_left) / round_seconds;
  r.rounds = static_cast<std::size_t>(std::clamp(std::floor(affordable), 1.0, 64.0));
  r.max_processes = std::clamp<std::size_t>(
      processes_after(first_processes, std::numeric_limits<std::size_t>::max(), r.rounds),
      first_processes + 1, std::max(first_processes + 1, most_processes_per_cell));
  r.looks = looks_to_reach(first_processes, r.max_processes);
  return r;
}

std::size_t max_processes_for(double budget_seconds) {
  const budget_cell cell;
  const double scaled =
      std::round(static_cast<double>(cell.max_processes) * budget_seconds / default_budget_seconds);
  return static_cast<std::size_t>(std::clamp(scaled, double(cell.max_processes), 32.0));
}

std::vector<budget_cell> budget_cells(const run_plan& plan) {
  std::map<std::pair<frame, std::string>, std::size_t> groups;
  std::vector<budget_cell> cells;
  for (const cell_spec& c : plan.cells) {
    budget_cell b;
    b.group = groups.emplace(std::pair{c.frame, c.workload}, groups.size()).first->second;
    if (planner_of(c.frame).one_repetition_per_process) {  // e.g. a fresh server each
      b.first_processes = plan.repetitions.at(c.frame);
      b.max_processes = std::max(b.first_processes, plan.sizes.max_processes);
      b.repetitions = b.max_repetitions = 1;
    } else if (c.copy_cliff_removed) {  // the placement twin: one process, for its analysis
      b.first_processes = b.max_processes = 1;
    } else {
      b.max_processes = std::max(b.first_processes, plan.sizes.max_processes);
    }
    cells.push_back(b);
  }
  return cells;
}

std::vector<task> first_round(const std::vector<budget_cell>& cells, std::uint64_t seed) {
  std::vector<task> schedule;
  std::mt19937_64 shuffler(seed);
  std::size_t passes = 0;
  for (const budget_cell& c : cells) passes = std::max(passes, c.first_processes);
  for (std::size_t part = 0; part < passes; ++part) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (cells[i].first_processes > part) order.push_back(i);
    std::shuffle(order.begin(), order.end(), shuffler);
    for (std::size_t cell : order)
      schedule.push_back({cell, part, cells[cell].repetitions, seed + part});
  }
  return schedule;
}

std::size_t repetition_floor(double target_ns, double calibrated_sample_ns) {
  if (!(calibrated_sample_ns > 0) || !(target_ns > 0)) return min_samples_per_repetition;
  const double stretched = std::floor(max_repetition_stretch * target_ns / calibrated_sample_ns);
  return static_cast<std::size_t>(std::max<double>(
      smallest_samples_per_repetition, std::min<double>(min_samples_per_repetition, stretched)));
}

std::size_t samples_for_time(double target_ns, double sample_ns, std::size_t floor) {
  const double most = double(max_samples_per_repetition);
  const double least = std::min(double(floor), most);
  if (!(sample_ns > 0) || !(target_ns > 0)) return static_cast<std::size_t>(least);
  return static_cast<std::size_t>(std::clamp(std::ceil(target_ns / sample_ns), least, most));
}

stop_rule budget_rule(const std::vector<budget_cell>& cells) {
  std::size_t looks = 1;
  for (const budget_cell& c : cells)
    looks = std::max(looks, looks_to_reach(c.first_processes, c.max_processes));
  return rule_with_looks(looks);
}

}  // namespace alloclab::lab
