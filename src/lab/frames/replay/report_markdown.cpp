// report.md: the replay frame: a recorded trace under each malloc and resource, read from the
// results model (model/document.hpp).
#include <optional>
#include <string>

#include <fmt/format.h>

#include "frames/replay/figures.hpp"
#include "frames/replay/trust_text.hpp"
#include "trace/replay_error.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"
#include "text/plural.hpp"

namespace alloclab::lab::markdown {
namespace {

// The cell's whole-replay figures, or null (a cell without a number).
const replay_figures_out* replay_of(const model::cell& cell) {
  const replay_cell_figures* f = cell.figures.as<replay_cell_figures>();
  return f == nullptr || !f->replay ? nullptr : &*f->replay;
}

// Files written before the program model lack program_ns_per_call (read as no replays): "-".
std::string program_ns_text(const per_replay& program) {
  return format_number_or_dash(program.per_repetition.empty()
                                   ? std::optional<double>()
                                   : std::optional<double>(program.median),
                               "{:.1f}");
}

void replay_table(std::string& md, const model::workload& w, const trace_facts& t,
                  const std::optional<replay_trust_figures>& trust) {
  md += fmt::format("### Replay of `{}`\n\n", w.name);
  md += replay_trust_text(trust);
  md += fmt::format(
      "Trace {} · {} · replayed: {} · monotonic footprint {} · arena for the arena resource {}. "
      "ns per call: malloc call time; program ns per call: replayed program time, the calls and "
      "the modelled program work over the live blocks (touches in proportion to size, lifetime "
      "and the recorded time between calls; `alloclab advise` compares it). "
      "Ratios: {} ns per call ÷ the cell's, 95 % bootstrap interval over whole replays in fresh "
      "processes; a verdict is about the replay's figure, not the program's: {}. Peak RSS growth "
      "excludes the replay engine's own block table; ideal = the "
      "trace's peak live bytes; fragmentation = growth ÷ ideal; resident after the last free and "
      "after the allocator's purge are above the process's baseline.\n\n",
      t.path, counted(t.threads, "thread"), t.replayed.empty() ? "the whole trace" : t.replayed,
      format_bytes(static_cast<double>(t.monotonic_footprint)),
      format_bytes(static_cast<double>(t.arena_bytes)), baseline_name(w), verdict_legend());
  md += table_head({text_column("malloc / resource"), figure_column("ns per call"),
                    figure_column("vs baseline"), figure_column("program ns per call"),
                    figure_column("total (ms)"), figure_column("peak RSS growth"),
                    figure_column("ideal RSS"), figure_column("fragmentation"),
                    figure_column("after free"), figure_column("after purge"),
                    figure_column("calls (skipped)")});
  const std::string ranking_note = trust && !trust->predictive ? " (not predictive)" : "";
  for (const model::cell& c : w.cells) {
    const replay_figures_out* rp = replay_of(c);
    if (c.head.status != "ok" || rp == nullptr) {
      md += fmt::format("| {} | {} | | | | | | | | | |\n", replay_cell_label(c.head),
                        status_text(c.head.status));
      continue;
    }
    const replay_memory& m = rp->memory;
    const std::string ratio =
        is_baseline(w, c) ? "baseline" : replay_ratio_text(c.vs_std, trust) + ranking_note;
    md += fmt::format(
        "| {} | {:.1f} | {} | {} | {:.1f} | {} | {} | {} | {} | {} | {} ({}) |\n",
        replay_cell_label(c.head), rp->ns_per_call.median, ratio,
        program_ns_text(rp->program_ns_per_call), rp->total_ms.median,
        spread_text(m.peak_rss_growth_bytes), format_bytes(static_cast<double>(m.ideal_rss_bytes)),
        format_number_or_dash(m.fragmentation, "{:.2f}"), spread_text(m.rss_after_free_bytes),
        spread_text(m.rss_after_purge_bytes), rp->calls, rp->skipped_calls);
  }
  md += "\n";
}

}  // namespace

std::string replay_ratio_text(const std::optional<model::comparison>& vs_std,
                              const std::optional<replay_trust_figures>& trust) {
  if (!vs_std || !vs_std->speedup_p50) return "";
  std::string text = ratio_text(*vs_std->speedup_p50, vs_std->intervals.speedup_p50) +
                     ", in the replay " + speedup_verdict(*vs_std);
  if (!trust) return text;
  if (trace::within_error_of_one(*vs_std->speedup_p50, trust->replay_error_percent))
    text += fmt::format(", within the replay's error (±{:.0f} %): not a gain",
                        trust->replay_error_percent);
  return text;
}

std::string replay_trust_text(const std::optional<replay_trust_figures>& trust) {
  if (!trust) return {};
  std::string text = fmt::format("**Malloc ranking: {}.**", trust->ranking);
  for (const std::string& reason : trust->reasons) text += " Because " + reason + ".";
  text += fmt::format(
      " Cross-thread frees {:.2f} % of frees; producer/consumer pairs {}; peak live {} to {} over "
      "the threads' interleavings{}; a ratio within {:.0f} % of 1 is within the replay's error "
      "against real runs.\n\n",
      100 * trust->cross_thread_free_share, trust->producer_consumer_pairs,
      format_bytes(static_cast<double>(trust->peak_live_lowest_bytes)),
      format_bytes(static_cast<double>(trust->peak_live_highest_bytes)),
      trust->malloc_time_share ? fmt::format("; malloc calls ≈ {:.1f} % of the recorded run's time",
                                             100 * *trust->malloc_time_share)
                               : std::string(),
      trust->replay_error_percent);
  return text;
}

void replay_section(std::string& md, const model::document& r) {
  bool any = false;
  for (const model::workload& w : r.workloads) {
    const replay_workload_figures* f = w.figures.as<replay_workload_figures>();
    if (w.kind != "trace" || f == nullptr) continue;
    if (!any) md += "## Replay of recorded traces\n\n";
    any = true;
    replay_table(md, w, f->trace, f->replay_trust);
  }
}

}  // namespace alloclab::lab::markdown
