// report.md's opening sections of the batch frame, from the results model: the headline (every
// lab workload's cells against the baseline), the peer check and the placement analysis. The
// report skeleton (render/markdown.cpp) places them through the frame's row (render_summary).
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/batch/figures.hpp"
#include "model/document.hpp"
#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"
#include "render/placement_text.hpp"
#include "text/plural.hpp"
#include "render/units.hpp"
#include "stats/decision.hpp"

namespace alloclab::lab::markdown {
namespace {

const peer_verdict* peer_verdict_of(const model::workload& w, const std::string& malloc) {
  if (const auto* f = batch_figures_of(w))
    for (const auto& v : f->peer_verdicts)
      if (v.malloc == malloc) return &v;
  return nullptr;
}

bool any_peer_verdict(const model::document& r) {
  for (const auto& w : r.workloads)
    if (const auto* f = batch_figures_of(w); f != nullptr && !f->peer_verdicts.empty()) return true;
  return false;
}

std::string peer_verdict_badge(const peer_verdict* v) {
  if (v == nullptr) return "-";
  return v->verdict == "met" ? "✅ met" : v->verdict == "missed" ? "❌ missed" : "➖ not judged";
}

void headline_section(std::string& md, const model::document& r) {
  const bool with_malloc = several_mallocs(r);
  const model::workload* first = nullptr;
  for (const auto& w : r.workloads)
    if (is_lab(w) && first == nullptr) first = &w;
  if (first == nullptr) return;
  md += fmt::format("## Headline: speed vs {} (baseline p50 ÷ cell p50; > 1 is faster)\n\n",
                    with_malloc ? baseline_name(*first) : "std");
  if (std::none_of(r.workloads.begin(), r.workloads.end(),
                   [](const model::workload& w) { return has_baseline_timing(w); })) {
    md += fmt::format(
        "No ratios: every ratio is taken against `{}`, and this run has no timed cell of it. "
        "Add `std` to `--strategies` to get ratios.\n\n",
        baseline_name(*first));
    return;
  }
  const shown_intervals shown = vs_baseline_intervals(r);
  const std::string paired_legend = paired_interval_legend(r, shown);
  md += paired_legend.empty()
            ? fmt::format(
                  "Each ratio is between the two cells' median repetition p50s, and its 95 % "
                  "bootstrap interval over repetitions is in brackets: a ratio always lies in its "
                  "interval, and can differ a little from the ratio of the pooled p50s printed in "
                  "the tables. Verdicts: {}.",
                  verdict_legend())
            : paired_legend;
  md +=
      " `n/a`: strategy does not fit the workload; `OVERFLOW`: arena spilled to the heap, number "
      "withheld; ⚠: the cell has a warning (below).";
  if (with_malloc)
    md +=
        " Cells under another malloc ran in an isolated worker that proved the allocator live; "
        "`FAILED`, "
        "`REFUSED` and `not installed` rows are explained under Warnings.";
  std::vector<column> columns = {
      text_column("workload"),
      figure_column(fmt::format("{} p50", with_malloc ? baseline_name(*first) : "std"))};
  for (const auto& c : first->cells)
    if (!is_baseline(*first, c) && !c.head.placement_twin)
      columns.push_back(figure_column(cell_label(c.head, with_malloc)));
  const bool verdicts = any_peer_verdict(r);
  if (verdicts) columns.push_back(text_column("alloclab vs peers"));
  md += "\n\n" + table_head(columns);
  for (const auto& w : r.workloads) {
    if (!is_lab(w)) continue;
    md += fmt::format("| {} | {} |", w.name, baseline_p50_text(w));
    for (std::size_t i = 2; i < columns.size() - (verdicts ? 1 : 0); ++i) {
      const model::cell* found = cell_labelled(w, columns[i].title, with_malloc);
      if (found == nullptr) {  // the first workload's columns: this one lacks the cell
        md += " - |";
        continue;
      }
      std::string text = cell_state(found->head);
      if (text.empty()) text = vs_baseline_text(r, w, *found, shown);
      if (found->head.warning) text += " ⚠";
      md += fmt::format(" {} |", text);
    }
    if (verdicts)
      md += fmt::format(" {} |", peer_verdict_badge(peer_verdict_of(w, w.baseline.malloc)));
    md += "\n";
  }
  md += "\n";
}

// Whether any peer verdict picked its best among several alloclab strategies (results written
// before the selection correction have no `candidates`).
bool picked_among_several(const model::document& r) {
  for (const auto& w : r.workloads)
    if (const auto* f = batch_figures_of(w))
      for (const auto& v : f->peer_verdicts)
        if (v.candidates.value_or(1) > 1) return true;
  return false;
}

std::string best_alloclab_text(const peer_verdict& v) {
  if (!v.best_alloclab) return "-";
  const std::size_t candidates = v.candidates.value_or(1);
  return fmt::format("{} ({}{})", v.best_alloclab->strategy, format_ns(v.best_alloclab->p50_ns),
                     candidates > 1 ? fmt::format("; best of {}", candidates) : std::string());
}

// Peers the stop rule judged paired (their interval is its paired interval).
std::size_t paired_peers(const model::document& r) {
  std::size_t paired = 0;
  for (const auto& w : r.workloads)
    if (const auto* f = batch_figures_of(w))
      for (const auto& v : f->peer_verdicts)
        for (const auto& p : v.peers) paired += p.paired_runs.value_or(0) > 0;
  return paired;
}

std::string peers_text(const peer_verdict& v, bool marked) {
  std::string peers;
  for (const auto& p : v.peers)
    peers += fmt::format("{}{} {:.2f}×{}{} (p {:.2g}){}", peers.empty() ? "" : "; ", p.strategy,
                         p.ratio, interval_text(p.interval),
                         marked && p.paired_runs.value_or(0) == 0 ? unpaired_mark : "", p.p_value,
                         p.beaten ? "" : " ✗");
  for (const auto& u : v.unmeasured_peers)
    peers += fmt::format("{}{} no number", peers.empty() ? "" : "; ", u);
  return peers.empty() ? "-" : peers;
}

// The peer check, per workload and malloc: the best alloclab strategy against every peer.
void peers_section(std::string& md, const model::document& r) {
  if (!any_peer_verdict(r)) return;
  const std::size_t paired = paired_peers(r);
  md +=
      "## alloclab vs peers\n\n"
      "Per workload and malloc: the fastest `alloclab_*` strategy at p50 against every peer "
      "(`foonathan_*`, `boost_*`, `mimalloc_heap`, libstdc++'s `pmr_monotonic`, `pmr_unsync_pool`, "
      "`pmr_sync_pool`, `pmr_monotonic_over_pool`). ";
  md += paired == 0
            ? "A peer is beaten when the Mann-Whitney U test over the two cells' repetition "
              "medians gives p < 0.05 and the ratio's 95 % interval lies wholly above 1. Ratio = "
              "peer p50 ÷ best alloclab p50, each the median of the cell's repetition p50s (> 1: "
              "alloclab is faster), with its 95 % bootstrap interval over repetitions in "
              "brackets.\n\n"
            : fmt::format(
                  "Ratio = peer p50 ÷ best alloclab p50 (> 1: alloclab is faster). Intervals: "
                  "where the stop rule judged the peer paired ({} here), the ratio and the "
                  "brackets are its paired estimate and interval at the run's last look, the "
                  "interval the verdict came from: the peer is beaten when it lies wholly above "
                  "1, the same when it lies inside ±{:g} %; the p value is the U test's over "
                  "repetition medians, for reference. Peers marked{} were not judged paired: "
                  "beaten when that U test gives p < 0.05 and the 95 % bootstrap interval over "
                  "repetitions lies wholly above 1.\n\n",
                  counted(paired, "peer"), 100 * default_equivalence_margin, unpaired_mark);
  if (picked_among_several(r))
    md +=
        "The best is picked among N `alloclab_*` strategies (\"best of N\"), so each of its tests "
        "is at 0.05 ÷ N (Bonferroni): p × N must be under 0.05 and the interval is at 1 − 0.05 "
        "÷ N.\n\n";
  md += table_head({text_column("workload"), text_column("malloc"),
                    text_column("best alloclab (p50)"), text_column("peers (ratio, p)"),
                    text_column("verdict"), text_column("why not")});
  for (const auto& w : r.workloads) {
    const auto* f = batch_figures_of(w);
    if (f == nullptr) continue;
    for (const auto& v : f->peer_verdicts)
      md +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", w.name, v.malloc, best_alloclab_text(v),
                      peers_text(v, paired > 0), peer_verdict_badge(&v), v.reason.value_or(""));
  }
  md += "\n";
}

// Which ratios measure buffer placement and copying rather than the allocator.
void placement_section(std::string& md, const model::document& r) {
  std::string body;
  for (const auto& w : r.workloads) {
    const auto* f = batch_figures_of(w);
    if (f == nullptr || !f->placement) continue;
    const placement_analysis& p = *f->placement;
    body += fmt::format("| {} | {} |", w.name, estimate_or_dash(p.baseline_copy_cliff_cost));
    std::string rows;
    for (const auto& s : p.strategies)
      if (s.placement_driven)
        rows += fmt::format("{}{}: {} → {}", rows.empty() ? "" : "; ", s.strategy,
                            estimate_or_dash(s.with_cliff), estimate_or_dash(s.without_cliff));
    body += fmt::format(" {} |\n", rows.empty() ? "none" : rows);
  }
  if (body.empty()) return;
  md += fmt::format(
      "## Placement: which ratios measure copying, not the allocator\n\n"
      "Every glibc cell was measured a second time under `{}`: the same malloc with memmove's "
      "`rep movsb` threshold raised, so copies no longer depend on the relative alignment of "
      "source and destination. On this machine (see the environment's placement probe) a large "
      "memmove is many times slower at some relative offsets, so a growing `std::vector` pays "
      "for where malloc happened to put its old and new buffers. A ratio that changes when only "
      "the copy cliff changes is driven by placement: the allocator did not get faster, the "
      "copies did. The second column is how much faster std itself runs without the cliff.\n\n"
      "{}{}\n",
      r.config.placement_twin.value_or(std::nullopt).value_or("glibc_nocliff"),
      table_head({text_column("workload"), figure_column("std: cliff p50 ÷ no-cliff p50"),
                  text_column("placement-driven ratios: with cliff → without")}),
      body);
}

}  // namespace

void batch_summary_sections(std::string& md, const model::document& r) {
  headline_section(md, r);
  peers_section(md, r);
  placement_section(md, r);
}

}  // namespace alloclab::lab::markdown
