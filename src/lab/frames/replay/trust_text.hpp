// The replay's trust in words (frames/replay/figures.hpp: replay_trust_figures), for the report
// and the console: whether its malloc ranking predicts the program's, and a ratio marked when it
// is within the replay's measured error against real runs.
#pragma once

#include <optional>
#include <string>

#include "frames/replay/figures.hpp"
#include "model/cell.hpp"

namespace alloclab::lab::markdown {

/// `vs_std` as the report writes it: "1.20× [1.10–1.31], in the replay decided faster" (the
/// one vocabulary, markdown_format.hpp speedup_verdict), with ", within the replay's error
/// (±35 %): not a gain" when the ratio is that close to 1.
std::string replay_ratio_text(const std::optional<model::comparison>& vs_std,
                              const std::optional<replay_trust_figures>& trust);
/// "**Malloc ranking: not predictive for this program; run real runs (try).** Because ...".
std::string replay_trust_text(const std::optional<replay_trust_figures>& trust);

}  // namespace alloclab::lab::markdown
