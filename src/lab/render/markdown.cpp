#include "markdown.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "frames/frame_table.hpp"
#include "model/document.hpp"

#include "markdown_format.hpp"
#include "render/placement_text.hpp"
#include "markdown_sections.hpp"

namespace alloclab::lab {
namespace markdown {
namespace {

std::string peer_verdict_badge(const json* v) {
  if (v == nullptr) return "-";
  const std::string verdict = (*v)["verdict"];
  return verdict == "met" ? "✅ met" : verdict == "missed" ? "❌ missed" : "➖ not judged";
}

void headline_section(std::string& md, const json& r) {
  const bool with_malloc = several_mallocs(r);
  const json* first = nullptr;
  for (const auto& w : r["workloads"])
    if (is_lab(w) && first == nullptr) first = &w;
  if (first == nullptr) return;
  md += fmt::format("## Headline: speed vs {} (baseline p50 ÷ cell p50; > 1 is faster)\n\n",
                    with_malloc ? baseline_name(*first) : "std");
  if (std::none_of(r["workloads"].begin(), r["workloads"].end(), has_baseline_timing)) {
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
  for (const auto& c : (*first)["cells"])
    if (!is_baseline(*first, c) && !is_twin(c))
      columns.push_back(figure_column(cell_label(c, with_malloc)));
  const bool verdicts = any_peer_verdict(r);
  if (verdicts) columns.push_back(text_column("alloclab vs peers"));
  md += "\n\n" + table_head(columns);
  for (const auto& w : r["workloads"]) {
    if (!is_lab(w)) continue;
    const std::string base_p50 = baseline_p50_text(w);
    md += fmt::format("| {} | {} |", w["name"].get<std::string>(), base_p50);
    for (std::size_t i = 2; i < columns.size() - (verdicts ? 1 : 0); ++i) {
      const json* found = cell_labelled(w, columns[i].title, with_malloc);
      if (found == nullptr) {  // the first workload's columns: this one lacks the cell
        md += " - |";
        continue;
      }
      const json& c = *found;
      std::string text = cell_state(c);
      if (text.empty()) text = speedup_text(c);
      if (!c["warning"].is_null()) text += " ⚠";
      md += fmt::format(" {} |", text);
    }
    if (verdicts)
      md += fmt::format(" {} |", peer_verdict_badge(peer_verdict_of(w, baseline_malloc(w))));
    md += "\n";
  }
  md += "\n";
}

// Whether any peer verdict picked its best among several alloclab strategies (results written
// before the selection correction have no `candidates`).
bool picked_among_several(const json& r) {
  for (const auto& w : r["workloads"])
    for (const auto& v : w.value("peer_verdicts", json::array()))
      if (v.value("candidates", 1) > 1) return true;
  return false;
}

// The peer check, per workload and malloc: the best alloclab strategy against every peer.
void peers_section(std::string& md, const json& r) {
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
  for (const auto& w : r["workloads"]) {
    if (!w.contains("peer_verdicts") || !w["peer_verdicts"].is_array()) continue;
    const json& all = w["peer_verdicts"];
    for (const auto& v : all) {
      const std::string best =
          v["best_alloclab"].is_null()
              ? "-"
              : fmt::format("{} ({}{})", v["best_alloclab"]["strategy"].get<std::string>(),
                            format_ns(v["best_alloclab"]["p50_ns"].get<double>()),
                            v.value("candidates", 1) > 1
                                ? fmt::format("; best of {}", v["candidates"].get<int>())
                                : std::string());
      std::string peers;
      for (const auto& p : v["peers"])
        peers += fmt::format("{}{} {:.2f}×{} (p {:.2g}){}", peers.empty() ? "" : "; ",
                             p["strategy"].get<std::string>(), p["ratio"].get<double>(),
                             interval_text(p.value("interval", json())), p["p_value"].get<double>(),
                             p["beaten"].get<bool>() ? "" : " ✗");
      for (const auto& u : v["unmeasured_peers"])
        peers += fmt::format("{}{} no number", peers.empty() ? "" : "; ", u.get<std::string>());
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", w["name"].get<std::string>(),
                        v["malloc"].get<std::string>(), best, peers.empty() ? "-" : peers,
                        peer_verdict_badge(&v),
                        v["reason"].is_string() ? v["reason"].get<std::string>() : "");
    }
  }
  md += "\n";
}

void warnings_section(std::string& md, const json& r) {
  if (r["warnings"].empty()) return;
  md += "## Warnings\n\n";
  for (const auto& w : r["warnings"]) md += fmt::format("- {}\n", w.get<std::string>());
  md += "\n";
}

void claims_section(std::string& md, const json& r, const report_options& options) {
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
  for (const auto& c : r["claims"]) {
    const std::string where = c["workload"].get<std::string>().empty()
                                  ? "-"
                                  : fmt::format("{} / {}", c["workload"].get<std::string>(),
                                                c["candidate"].get<std::string>());
    const std::string verdict = c["verdict"];
    const std::string badge = verdict == "reproduced"                 ? "✅ reproduced"
                              : verdict == "refuted"                  ? "❌ refuted"
                              : verdict == "inconclusive"             ? "❔ inconclusive"
                              : verdict == "not measured in this run" ? "⏭ not measured in this run"
                              : verdict == "not measurable here"      ? "➖ not measurable here"
                                                                      : "⏸ " + verdict;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c["seed"].get<std::string>(),
                      c["statement"].get<std::string>(), where, c["metric"].get<std::string>(),
                      c["measured"].get<std::string>(), badge, c["detail"].get<std::string>());
  }
  md += "\n";
}

// What a timed cell's figures stand on: "3 × 2000" (processes × samples per repetition).
std::string stands_on(const json& c) {
  const json& t = c["timing"];
  const json& reps = t.value("repetition_medians_ns", json());
  if (!reps.is_array() || reps.empty() || !t.value("samples", json()).is_number_unsigned() ||
      !c.value("processes", json()).is_number_unsigned())
    return "-";
  return fmt::format("{} × {}", c["processes"].get<std::size_t>(),
                     t["samples"].get<std::size_t>() / reps.size());
}

void workload_table(std::string& md, const json& w, const json& r) {
  const bool with_malloc = several_mallocs(r);
  md += fmt::format("### {}\n\n{}\n\n", w["name"].get<std::string>(),
                    w["description"].get<std::string>());
  const auto& f = w["footprint"];
  if (!f.is_null())
    md += fmt::format(
        "Per iteration (tracking pass): {} allocations, {} B requested, peak {} B live, largest "
        "request {} B, bump-arena footprint {} B → arenas get {} B. Checksum {}.",
        f["allocations"].get<std::size_t>(), f["bytes_requested"].get<std::size_t>(),
        f["peak_bytes"].get<std::size_t>(), f["largest_request"].get<std::size_t>(),
        f["monotonic_footprint"].get<std::size_t>(), f["suggested_arena_bytes"].get<std::size_t>(),
        w["checksum"].get<std::string>());
  if (w["batched"].get<bool>())
    md += fmt::format(
        " **Batched:** an iteration is shorter than 50× the clock overhead ({:.0f} ns), so each "
        "sample is the mean of {} back-to-back iterations; percentiles are of batch means.",
        r["timer"]["batch_threshold_ns"].get<double>(), w["batch_size"].get<std::size_t>());
  if (!f.is_null() && f["allocations"].get<std::size_t>() <= 2)
    md += fmt::format(
        " **Note:** only {} allocation(s) per iteration; the rest is container and copy work, so "
        "differences of a few percent here are code generation and code layout, not the allocator.",
        f["allocations"].get<std::size_t>());
  md += "\n\n" +
        table_head(
            {text_column(with_malloc ? "strategy @ malloc" : "strategy"), figure_column("p50"),
             figure_column("p99"), figure_column("jitter (p99−p50)"), figure_column("CV"),
             figure_column("throughput"), figure_column("heap allocs/it"),
             figure_column("heap B/it"), figure_column("fallbacks/it"),
             figure_column("faults/1k it"), figure_column("processes × samples/rep"),
             figure_column(fmt::format("vs {} (p50)", with_malloc ? baseline_name(w) : "std"))});
  for (const auto& c : w["cells"]) {
    if (is_twin(c)) continue;
    std::string name = cell_label(c, with_malloc);
    if (!c["warning"].is_null()) name = "⚠ " + name;
    const json& t = c["timing"];
    const json& h = c["heap"];
    const std::string allocs = h.is_null() ? "-" : format_count(h["allocations_per_iteration"]);
    const std::string bytes = h.is_null() ? "-" : format_count(h["bytes_per_iteration"]);
    const json& fb = c["upstream_fallbacks_per_iteration"];
    const std::string fallbacks = fb.is_null() ? "-" : format_count(fb.get<double>());
    if (t.is_null()) {
      const std::string status = c["status"];
      md += fmt::format("| {} | {} | | | | | {} | {} | {} | | | {} |\n", name,
                        status == "not_applicable" ? "n/a"
                        : status == "overflowed"   ? "**withheld**"
                                                   : "**" + unmeasured_text(c) + "**",
                        allocs, bytes, fallbacks,
                        c["reason"].is_null() ? "" : c["reason"].get<std::string>());
      continue;
    }
    const json& os = c["os"];  // null in a hand-edited file: a dash, not a crash
    md += fmt::format(
        "| {} | {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {} | {} | {} |\n", name,
        format_ns(t["p50_ns"]), format_ns(t["p99_ns"]), format_ns(t["jitter_ns"]),
        100 * t["cv"].get<double>(), format_rate(t["throughput_per_s"]), allocs, bytes, fallbacks,
        os.is_object() ? format_number_or_dash(os["minor_faults_per_1000_iterations"], "{:.2f}")
                       : std::string("-"),
        stands_on(c), is_baseline(w, c) ? std::string("baseline") : speedup_text(c));
  }
  for (const auto& c : w["cells"])
    if (!c["warning"].is_null())
      md += fmt::format("\n⚠ {}: {} (seed 000's bug 1, kept on purpose).\n",
                        cell_label(c, with_malloc), c["warning"].get<std::string>());
  md += "\n";
}

// Isolated workers that crashed, hung or refused: what they said.
void failures_section(std::string& md, const json& r) {
  std::string rows;
  for (const auto& w : r["workloads"])
    for (const auto& c : w["cells"])
      if (!c.value("worker", json()).is_null() && c["status"] != "ok")
        rows += failed_cell_item(w["name"].get<std::string>() + " / " + cell_label(c, true), c,
                                 "worker");
  if (rows.empty()) return;
  md +=
      "## Failed and refused cells\n\nEvery other result was kept. The tail of each worker's "
      "stderr:\n\n" +
      rows + "\n";
}

// Which ratios measure buffer placement and copying rather than the allocator.
void placement_section(std::string& md, const json& r) {
  std::string body;
  for (const auto& w : r["workloads"]) {
    const json& p = w.value("placement", json());
    if (!p.is_object()) continue;
    const std::string name = w["name"];
    const std::vector<std::string> driven = p["placement_driven"];
    body += fmt::format("| {} | {} |", name, estimate_or_dash(p["baseline_copy_cliff_cost"]));
    std::string rows;
    for (const auto& s : p["strategies"])
      if (s["placement_driven"].get<bool>())
        rows +=
            fmt::format("{}{}: {} → {}", rows.empty() ? "" : "; ", s["strategy"].get<std::string>(),
                        estimate_or_dash(s["with_cliff"]), estimate_or_dash(s["without_cliff"]));
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
      r["config"].value("placement_twin", std::string("glibc_nocliff")),
      table_head({text_column("workload"), figure_column("std: cliff p50 ÷ no-cliff p50"),
                  text_column("placement-driven ratios: with cliff → without")}),
      body);
}

void frames_section(std::string& md, const json& r) {
  const json& frames = r.value("frames", json::object());
  if (frames.empty()) return;
  md += "## What the numbers include\n\n";
  for (const auto& [name, text] : frames.items())
    md += fmt::format("- **{} frame**: {}.\n", name, text.get<std::string>());
  md += "\n";
}

}  // namespace
}  // namespace markdown

using namespace markdown;  // the report's vocabulary and sections

// A frame measured by its own command (`alloclab try`) whose results hold that frame alone.
const frame_module* frame_run_alone(const json& r) {
  for (const auto& row : frame_table())
    if (row.report_heading != nullptr && r.contains(row.name) && r["workloads"].empty())
      return &row;
  return nullptr;
}

// The report of such a run: the frame's heading, the warnings, its section and the machine.
std::string frame_report(const json& r, const frame_module& row) {
  std::string md = row.report_heading(r);
  warnings_section(md, r);
  row.render_markdown(md, r);
  environment_section(md, r);
  return md;
}

// Every frame's section, in report order: from the results model for those that read it.
void frame_sections(std::string& md, const json& r, const model::document& document) {
  for (const frame_module* row : report_order())
    if (row->render_section != nullptr)
      row->render_section(md, document);
    else
      row->render_markdown(md, r);
}

std::string render_report(const json& r, const report_options& options) {
  if (const frame_module* alone = frame_run_alone(r)) return frame_report(r, *alone);
  const model::document document = model::from_json(r);  // read once for the sections that read it
  std::string md;
  const bool debug = is_debug(r);
  md += debug ? "# DEBUG — alloclab report (unoptimised build: numbers are meaningless)\n\n"
              : "# alloclab report\n\n";
  if (r.value("smoke_test", false))
    md +=
        "> **SMOKE TEST (`--quick`)**: small samples, to check that the lab works. Do not quote "
        "these numbers.\n\n";
  md += fmt::format("Run {} · {} workloads × {} strategies × {} malloc(s) · revision {}\n\n",
                    r["created_utc"].get<std::string>(), r["config"]["workloads"].size(),
                    r["config"]["strategies"].size(), malloc_labels(r).size(), revision_text(r));
  noise_line(md, r);
  headline_section(md, r);
  peers_section(md, r);
  frames_section(md, r);
  placement_section(md, r);
  warnings_section(md, r);
  budget_section(md, r, document);
  claims_section(md, r, options);
  frame_sections(md, r, document);
  failures_section(md, r);
  bool any_lab = false;
  for (const auto& w : r["workloads"]) any_lab = any_lab || is_lab(w);
  if (any_lab) md += "## Workloads\n\n";
  for (const auto& w : r["workloads"])
    if (is_lab(w)) workload_table(md, w, r);
  method_section(md, r);
  environment_section(md, r);
  if (debug) md += "**DEBUG build — do not publish these numbers.**\n";
  return md;
}

}  // namespace alloclab::lab
