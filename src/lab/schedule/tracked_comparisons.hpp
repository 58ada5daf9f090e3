// What a budgeted run wants decided, and the figures it decides them on: every cell against its
// workload's baseline (std, or glibc for a heap cell), every ratio claim of the seeds against its
// accepted range, and the fastest alloclab strategy against each peer. Built from the plan and
// the claims file; the peers from what has been measured so far (the fastest changes).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"
#include "records/measurement_record.hpp"
#include "schedule/budget_state.hpp"

namespace alloclab::lab {

// vs_std and claim comparisons between the plan's cells.
std::vector<tracked_comparison> planned_comparisons(const run_plan& plan,
                                                    const nlohmann::json& claims);

// Per lab workload and malloc: the alloclab strategy with the lowest p50 level so far against
// each peer strategy measured beside it (boundary 1).
std::vector<tracked_comparison> peer_comparisons(const run_plan& plan, const budget_state& state);

// A record's per-repetition readings by figure, one map per process it stands for (a serve
// record holds one fresh server per repetition), as its figures' type gives them. Empty when the
// record has no number.
std::vector<figure_readings> figures_of(const measurement_record& r);
// The per-repetition readings of one figure of a record that stands for one process (empty: no
// number, or a record of several processes).
std::vector<double> readings_of(const measurement_record& r, const std::string& figure);

}  // namespace alloclab::lab
