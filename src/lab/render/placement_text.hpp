// The words for the memmove placement probe (results' environment.placement): written from the
// probe's stored figures (its cliffs, worst ratio and configuration), never re-measured or
// re-judged here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace alloclab::lab {

// One line for a probe (copy_cliff_result::to_json()), e.g. "memmove of 32 KiB is 17.2x slower
// when dst - src = 16 (mod 4096) (696 ns vs 12.0 µs); slow (over 3x) at dst - src = 8..24
// (mod 4096)" (sizes and times in render/units.hpp's words), or "no memmove cliff by placement: ...".
std::string cliff_description(const nlohmann::json& probe);

// cliff_description, plus whether the probe re-run under the tunable (`with_tunable`, null when
// it was not measured) removes the cliff: "...; GLIBC_TUNABLES=<t> removes it (worst 1.1x)" or
// "...; under GLIBC_TUNABLES=<t> it remains (12.0x)".
std::string tunable_description(const nlohmann::json& probe, const nlohmann::json& with_tunable);

// The report's line for environment.placement (`config` is the results' config): the tunable
// description, and under --placement-check always or never whether the twin was measured.
std::string placement_summary(const nlohmann::json& placement, const nlohmann::json& config);

}  // namespace alloclab::lab
