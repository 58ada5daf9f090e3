#include "markdown.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/batch/figures.hpp"
#include "frames/frame_table.hpp"
#include "model/document.hpp"

#include "markdown_format.hpp"
#include "render/placement_text.hpp"
#include "markdown_sections.hpp"

namespace alloclab::lab {
namespace markdown {
namespace {

const batch_workload_figures* batch_figures(const model::workload& w) {
  return w.figures.as<batch_workload_figures>();
}

const peer_verdict* peer_verdict_of(const model::workload& w, const std::string& malloc) {
  if (const auto* f = batch_figures(w))
    for (const auto& v : f->peer_verdicts)
      if (v.malloc == malloc) return &v;
  return nullptr;
}

bool any_peer_verdict(const model::document& r) {
  for (const auto& w : r.workloads)
    if (const auto* f = batch_figures(w); f != nullptr && !f->peer_verdicts.empty()) return true;
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
  md +=
      "Each ratio is between the two cells' median repetition p50s, and its 95 % bootstrap "
      "interval over repetitions is in brackets: a ratio always lies in its interval, and can "
      "differ a little from the ratio of the pooled p50s printed in the tables. Significance: "
      "Mann-Whitney U over the per-repetition medians, `**` p < 0.01, `*` p < 0.05, "
      "`n.s.` not significant, `?` too few repetitions. `n/a`: strategy does not fit the workload; "
      "`OVERFLOW`: arena spilled to the heap, number withheld; ⚠: the cell has a warning (below).";
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
      if (text.empty()) text = speedup_text(found->vs_std);
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
    if (const auto* f = batch_figures(w))
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

std::string peers_text(const peer_verdict& v) {
  std::string peers;
  for (const auto& p : v.peers)
    peers += fmt::format("{}{} {:.2f}×{} (p {:.2g}){}", peers.empty() ? "" : "; ", p.strategy,
                         p.ratio, interval_text(p.interval), p.p_value, p.beaten ? "" : " ✗");
  for (const auto& u : v.unmeasured_peers)
    peers += fmt::format("{}{} no number", peers.empty() ? "" : "; ", u);
  return peers.empty() ? "-" : peers;
}

// The peer check, per workload and malloc: the best alloclab strategy against every peer.
void peers_section(std::string& md, const model::document& r) {
  if (!any_peer_verdict(r)) return;
  md +=
      "## alloclab vs peers\n\n"
      "Per workload and malloc: the fastest `alloclab_*` strategy at p50 against every peer "
      "(`foonathan_*`, `boost_*`, `mimalloc_heap`, libstdc++'s `pmr_monotonic`, `pmr_unsync_pool`, "
      "`pmr_sync_pool`, `pmr_monotonic_over_pool`). A peer is beaten when the "
      "Mann-Whitney U test over the two cells' repetition medians gives p < 0.05 and the ratio's "
      "95 % interval lies wholly above 1. Ratio = peer p50 "
      "÷ best alloclab p50, each the median of the cell's repetition p50s (> 1: alloclab is "
      "faster), with its 95 % bootstrap interval over repetitions in brackets.\n\n";
  if (picked_among_several(r))
    md +=
        "The best is picked among N `alloclab_*` strategies (\"best of N\"), so each of its tests "
        "is at 0.05 ÷ N (Bonferroni): p × N must be under 0.05 and the interval is at 1 − 0.05 "
        "÷ N.\n\n";
  md += table_head({text_column("workload"), text_column("malloc"),
                    text_column("best alloclab (p50)"), text_column("peers (ratio, p)"),
                    text_column("verdict"), text_column("why not")});
  for (const auto& w : r.workloads) {
    const auto* f = batch_figures(w);
    if (f == nullptr) continue;
    for (const auto& v : f->peer_verdicts)
      md +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", w.name, v.malloc, best_alloclab_text(v),
                      peers_text(v), peer_verdict_badge(&v), v.reason.value_or(""));
  }
  md += "\n";
}

void warnings_section(std::string& md, const model::document& r) {
  if (r.warnings.empty()) return;
  md += "## Warnings\n\n";
  for (const auto& w : r.warnings) md += fmt::format("- {}\n", w);
  md += "\n";
}

std::string claim_badge(const std::string& verdict) {
  return verdict == "reproduced"                 ? "✅ reproduced"
         : verdict == "refuted"                  ? "❌ refuted"
         : verdict == "inconclusive"             ? "❔ inconclusive"
         : verdict == "not measured in this run" ? "⏭ not measured in this run"
         : verdict == "not measurable here"      ? "➖ not measurable here"
                                                 : "⏸ " + verdict;
}

void claims_section(std::string& md, const model::document& r, const report_options& options) {
  md += "## Seed claims\n\n";
  if (options.claims_rejudged)
    md +=
        "> **Re-judged** by `alloclab report --rejudge` with this binary's claims file: these "
        "verdicts are not the run's own (those are in its results.json).\n\n";
  md +=
      "Each quantitative claim from the seeds (data: `src/lab/claims/seed_claims.json`), checked "
      "against this run. "
      "Ratios are oriented so that > 1 means the candidate beats std; each has its interval: the "
      "stop rule's, process-level and adjusted for the run's looks (see Budget), or in files "
      "from before it the 95 % bootstrap over repetitions. A claim is reproduced when the whole "
      "interval lies inside the "
      "accepted range, refuted when none of it does, and inconclusive when it straddles a bound. "
      "Runs too small to judge (fewer than 5 repetitions, or too few samples in each) say so.\n\n";
  md += table_head({text_column("seed"), text_column("claim"), text_column("workload / candidate"),
                    text_column("metric"), figure_column("measured"), text_column("verdict"),
                    text_column("detail")});
  for (const auto& c : r.claims) {
    const std::string where =
        c.workload.empty() ? "-" : fmt::format("{} / {}", c.workload, c.candidate);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c.seed, c.statement, where,
                      c.metric, c.measured, claim_badge(c.verdict), c.detail);
  }
  md += "\n";
}

// What a timed cell's figures stand on: "3 × 2000" (processes × samples per repetition).
std::string stands_on(const model::cell& c) {
  const model::timing& t = *c.timing;
  if (t.repetition_medians_ns.empty()) return "-";
  return fmt::format("{} × {}", c.head.processes, t.samples / t.repetition_medians_ns.size());
}

void footprint_text(std::string& md, const model::workload& w, const model::document& r) {
  const auto* figures = batch_figures(w);
  const auto& f = figures == nullptr ? std::optional<footprint>() : figures->footprint;
  if (f)
    md += fmt::format(
        "Per iteration (tracking pass): {} allocations, {} B requested, peak {} B live, largest "
        "request {} B, bump-arena footprint {} B → arenas get {} B. Checksum {}.",
        f->allocations, f->bytes_requested, f->peak_bytes, f->largest_request,
        f->monotonic_footprint, f->suggested_arena_bytes, w.checksum);
  if (w.batched)
    md += fmt::format(
        " **Batched:** an iteration is shorter than 50× the clock overhead ({:.0f} ns), so each "
        "sample is the mean of {} back-to-back iterations; percentiles are of batch means.",
        r.timer.batch_threshold_ns, w.batch_size);
  if (f && f->allocations <= 2)
    md += fmt::format(
        " **Note:** only {} allocation(s) per iteration; the rest is container and copy work, so "
        "differences of a few percent here are code generation and code layout, not the allocator.",
        f->allocations);
}

std::string workload_row(const model::workload& w, const model::cell& c, bool with_malloc) {
  std::string name = cell_label(c.head, with_malloc);
  if (c.head.warning) name = "⚠ " + name;
  const auto* f = c.figures.as<batch_cell_figures>();
  const bool counted = f != nullptr && f->heap;
  const std::string allocs = counted ? format_count(f->heap->allocations_per_iteration) : "-";
  const std::string bytes = counted ? format_count(f->heap->bytes_per_iteration) : "-";
  const std::string fallbacks = f != nullptr && f->upstream_fallbacks_per_iteration
                                    ? format_count(*f->upstream_fallbacks_per_iteration)
                                    : "-";
  if (!c.timing) {
    const std::string& status = c.head.status;
    return fmt::format("| {} | {} | | | | | {} | {} | {} | | | {} |\n", name,
                       status == "not_applicable" ? "n/a"
                       : status == "overflowed"   ? "**withheld**"
                                                  : "**" + status_text(status) + "**",
                       allocs, bytes, fallbacks, c.head.reason.value_or(""));
  }
  const model::timing& t = *c.timing;
  return fmt::format(
      "| {} | {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {} | {} | {} |\n", name,
      format_ns(t.p50_ns), format_ns(t.p99_ns), format_ns(t.jitter_ns), 100 * t.cv,
      format_rate(t.throughput_per_s), allocs, bytes, fallbacks,
      c.os ? fmt::format("{:.2f}", c.os->minor_faults_per_1000_iterations) : std::string("-"),
      stands_on(c), is_baseline(w, c) ? std::string("baseline") : speedup_text(c.vs_std));
}

void workload_table(std::string& md, const model::workload& w, const model::document& r) {
  const bool with_malloc = several_mallocs(r);
  md += fmt::format("### {}\n\n{}\n\n", w.name, w.description);
  footprint_text(md, w, r);
  md += "\n\n" +
        table_head(
            {text_column(with_malloc ? "strategy @ malloc" : "strategy"), figure_column("p50"),
             figure_column("p99"), figure_column("jitter (p99−p50)"), figure_column("CV"),
             figure_column("throughput"), figure_column("heap allocs/it"),
             figure_column("heap B/it"), figure_column("fallbacks/it"),
             figure_column("faults/1k it"), figure_column("processes × samples/rep"),
             figure_column(fmt::format("vs {} (p50)", with_malloc ? baseline_name(w) : "std"))});
  for (const auto& c : w.cells)
    if (!c.head.placement_twin) md += workload_row(w, c, with_malloc);
  for (const auto& c : w.cells)
    if (c.head.warning)
      md += fmt::format("\n⚠ {}: {} (seed 000's bug 1, kept on purpose).\n",
                        cell_label(c.head, with_malloc), *c.head.warning);
  md += "\n";
}

// Isolated workers that crashed, hung or refused: what they said.
void failures_section(std::string& md, const model::document& r) {
  std::string rows;
  for (const auto& w : r.workloads)
    for (const auto& c : w.cells)
      if (c.head.worker && c.head.status != "ok")
        rows += failed_cell_item(w.name + " / " + cell_label(c.head, true), c.head, "worker");
  if (rows.empty()) return;
  md +=
      "## Failed and refused cells\n\nEvery other result was kept. The tail of each worker's "
      "stderr:\n\n" +
      rows + "\n";
}

// Which ratios measure buffer placement and copying rather than the allocator.
void placement_section(std::string& md, const model::document& r) {
  std::string body;
  for (const auto& w : r.workloads) {
    const auto* f = batch_figures(w);
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

void frames_section(std::string& md, const model::document& r) {
  if (r.frames.empty()) return;
  md += "## What the numbers include\n\n";
  for (const auto& [name, text] : r.frames) md += fmt::format("- **{} frame**: {}.\n", name, text);
  md += "\n";
}

}  // namespace
}  // namespace markdown

using namespace markdown;  // the report's vocabulary and sections

// A frame measured by its own command (`alloclab try`) whose results hold that frame alone: its
// report's heading, or none.
std::string heading_of_frame_run_alone(const model::document& d, const frame_module** row) {
  if (!d.workloads.empty()) return "";
  for (const auto& r : frame_table())
    if (r.report_heading != nullptr)
      if (std::string heading = r.report_heading(d); !heading.empty()) {
        *row = &r;
        return heading;
      }
  return "";
}

// Every frame's section, in report order.
void frame_sections(std::string& md, const model::document& d) {
  for (const frame_module* row : report_order())
    if (row->render_section != nullptr) row->render_section(md, d);
}

std::string render_report(const nlohmann::json& results, const report_options& options) {
  return render_report(model::from_json(results), options);
}

std::string render_report(const model::document& d, const report_options& options) {
  const frame_module* alone = nullptr;
  std::string md = heading_of_frame_run_alone(d, &alone);
  if (alone != nullptr) {  // the frame's heading, the warnings, its section and the machine
    warnings_section(md, d);
    alone->render_section(md, d);
    environment_section(md, d);
    return md;
  }
  const bool debug = d.debug_build;
  md += debug ? "# DEBUG — alloclab report (unoptimised build: numbers are meaningless)\n\n"
              : "# alloclab report\n\n";
  if (d.smoke_test)
    md +=
        "> **SMOKE TEST (`--quick`)**: small samples, to check that the lab works. Do not quote "
        "these numbers.\n\n";
  md += fmt::format("Run {} · {} workloads × {} strategies × {} malloc(s) · revision {}\n\n",
                    d.created_utc, d.config.workloads.size(), d.config.strategies.size(),
                    d.config.mallocs.size(), revision_text(d));
  noise_line(md, d);
  headline_section(md, d);
  peers_section(md, d);
  frames_section(md, d);
  placement_section(md, d);
  warnings_section(md, d);
  budget_section(md, d);
  claims_section(md, d, options);
  frame_sections(md, d);
  failures_section(md, d);
  const bool any_lab =
      std::any_of(d.workloads.begin(), d.workloads.end(), [](const auto& w) { return is_lab(w); });
  if (any_lab) md += "## Workloads\n\n";
  for (const auto& w : d.workloads)
    if (is_lab(w)) workload_table(md, w, d);
  method_section(md, d);
  environment_section(md, d);
  if (debug) md += "**DEBUG build — do not publish these numbers.**\n";
  return md;
}

}  // namespace alloclab::lab
