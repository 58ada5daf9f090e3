// A replay's lines in the console summary a run ends with: ns per call of each malloc or resource.
#include <string>

#include <fmt/format.h>

#include "frames/replay/figures.hpp"
#include "frames/replay/trust_text.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {

void replay_console_lines(std::string& out, const model::document& r) {
  for (const auto& w : r.workloads) {
    if (w.kind != "trace") continue;
    const auto* figures = w.figures.as<replay_workload_figures>();
    const std::optional<replay_trust_figures> trust =
        figures != nullptr ? figures->replay_trust : std::nullopt;
    out += fmt::format(
        "replay of {}: ns per call (x = {} / this, 95 % interval; the verdicts of try, about the "
        "replay's figure)\n",
        w.name, baseline_name(w));
    if (trust) out += fmt::format("  malloc ranking: {}\n", trust->ranking);
    for (const auto& c : w.cells) {
      const auto* f = c.figures.as<replay_cell_figures>();
      const std::string what = c.head.status == "ok" && f != nullptr && f->replay
                                   ? fmt::format("{:.1f} ns  {}", f->replay->ns_per_call.median,
                                                 replay_ratio_text(c.vs_std, trust))
                                   : status_text(c.head.status);
      out += fmt::format("  {:<40} {}\n", replay_cell_label(c.head), what);
    }
  }
}

}  // namespace alloclab::lab::markdown
