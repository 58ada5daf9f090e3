// The words for the memmove placement probe (results' environment.placement): written from the
// probe's stored figures (its cliffs, worst ratio and configuration), never re-measured or
// re-judged here.
#pragma once

#include <string>

#include <optional>

#include "model/document.hpp"

namespace alloclab::lab {

// One line for a probe (the results model's copy_probe), e.g. "memmove of 32 KiB is 17.2x slower
// when dst - src = 16 (mod 4096) (696 ns vs 12.0 µs); slow (over 3x) at dst - src = 8..24
// (mod 4096)" (sizes and times in render/units.hpp's words), or "no memmove cliff by placement: ...".
std::string cliff_description(const model::copy_probe& probe);

// cliff_description, plus whether the probe re-run under the tunable (`with_tunable`, none when
// it was not measured) removes the cliff: "...; GLIBC_TUNABLES=<t> removes it (worst 1.1x)" or
// "...; under GLIBC_TUNABLES=<t> it remains (12.0x)".
std::string tunable_description(const model::copy_probe& probe,
                                const std::optional<model::copy_probe>& with_tunable);

// The report's line for environment.placement (`config` is the results' config): the tunable
// description, and under --placement-check always or never whether the twin was measured.
std::string placement_summary(const std::optional<model::placement_facts>& placement,
                              const model::run_config& config);

}  // namespace alloclab::lab
