// `alloclab __pair-check SPEC`: how the lab decides, checked on this machine. One workload's
// whole lockstep ring (every strategy under glibc, as the default main job times it) plus a
// second copy of its std cell, whose worker may carry an injected cost. The std cell against its
// copy is an A/A comparison when nothing is injected and a known effect when something is;
// bench/lockstep_validation.py runs it many times and counts the verdicts (docs/budget.md).
//
// SPEC (JSON): {"workload": "vector_push", "runs": 4, "inject_percent": 0, "seed": 1}
// Prints one JSON object: the paired interval (per-slice ratios, grouped by ring run) and the
// unpaired one (the same processes' levels), each with its verdict at 95 % and a 2 % margin.
#pragma once

#include <iosfwd>

namespace alloclab::lab {

int pair_check_main(const char* spec_json, std::ostream& out, std::ostream& err);

}  // namespace alloclab::lab
