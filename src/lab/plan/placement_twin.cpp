// The placement twin: glibc without memmove's copy cliff, measured beside plain glibc so the
// report can tell placement-driven ratios apart; when the plan adds it and when it is dropped.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "measure/copy_cliff.hpp"
#include "plan/plan.hpp"

namespace alloclab::lab {

bool wants_placement_twin(const run_plan& plan, bool sanitized) {
  if (plan.placement_check == placement_check_mode::never || sanitized ||
      plan.workloads.lab.empty())
    return false;
  const bool glibc = std::any_of(plan.mallocs.begin(), plan.mallocs.end(),
                                 [](const malloc_choice& m) { return m.plain_glibc(); });
  const bool already = std::any_of(plan.mallocs.begin(), plan.mallocs.end(),
                                   [](const auto& m) { return m.label == placement_twin_malloc; });
  return glibc && !already;
}

model::placement_facts settle_placement_twin(run_plan& plan, const placement_probe& probe) {
  if (!keep_placement_twin(plan.placement_check, probe.plain.has_cliff()))
    drop_placement_twin(plan);
  model::placement_facts placement = probe.facts();
  placement.check = to_string(plan.placement_check);
  return placement;
}

bool keep_placement_twin(placement_check_mode mode, bool probe_found_cliff) {
  switch (mode) {
    case placement_check_mode::always:
      return true;
    case placement_check_mode::never:
      return false;
    case placement_check_mode::automatic:
      return probe_found_cliff;
  }
  return probe_found_cliff;
}

const char* to_string(placement_check_mode mode) {
  switch (mode) {
    case placement_check_mode::always:
      return "always";
    case placement_check_mode::never:
      return "never";
    case placement_check_mode::automatic:
      return "auto";
  }
  return "auto";
}

placement_check_mode parse_placement_check_mode(const std::string& word) {
  for (const auto mode :
       {placement_check_mode::automatic, placement_check_mode::always, placement_check_mode::never})
    if (word == to_string(mode)) return mode;
  throw usage_error(fmt::format("--placement-check '{}' is not one of auto, always, never", word));
}

void drop_placement_twin(run_plan& plan) {
  if (plan.placement_twin.empty()) return;
  keep_cells(plan, [](const cell_spec& c) { return !c.copy_cliff_removed; });
  plan.placement_twin.clear();
}

void keep_cells(run_plan& plan, const std::function<bool(const cell_spec&)>& keep) {
  std::vector<std::size_t> new_index(plan.cells.size(), SIZE_MAX);
  std::vector<cell_spec> kept;
  for (std::size_t i = 0; i < plan.cells.size(); ++i)
    if (keep(plan.cells[i])) {
      new_index[i] = kept.size();
      kept.push_back(plan.cells[i]);
    }
  std::vector<task> schedule;
  for (task t : plan.schedule)
    if (new_index[t.cell] != SIZE_MAX) {
      t.cell = new_index[t.cell];
      schedule.push_back(t);
    }
  plan.cells = std::move(kept);
  plan.schedule = std::move(schedule);
}

}  // namespace alloclab::lab
