// `alloclab __pair-check SPEC`: how the lab decides, checked on this machine. One workload's
// whole lockstep ring (every strategy under its mallocs, as the default main job times it; in the
// heap frame every malloc) plus a second copy of its baseline cell (std @ glibc, or malloc @
// glibc in the heap frame), whose worker may carry an injected cost (batch frame only). The
// baseline against its copy is an A/A comparison when nothing is injected and a known effect
// when something is; bench/lockstep_validation.py runs it many times and counts the verdicts
// (docs/budget.md).
//
// SPEC (JSON): {"workload": "vector_push", "runs": 8, "inject_percent": 0, "seed": 1,
//               "mallocs": ["glibc", "jemalloc"]} (mallocs optional: glibc)
// Runs ring runs as a budgeted run grows a comparison (2, then by half up to `runs`), looking
// after each step with the stop rule's alpha spending, and prints one JSON object: the paired
// answer (per-slice ratios, grouped by ring run) and the unpaired one (the same processes'
// levels), each at the first look that decided it (a 2 % equivalence margin) or the last.
#pragma once

#include <iosfwd>

namespace alloclab::lab {

int pair_check_main(const char* spec_json, std::ostream& out, std::ostream& err);

}  // namespace alloclab::lab
