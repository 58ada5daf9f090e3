#include "markdown.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "render/frame_report.hpp"
#include "model/document.hpp"

#include "markdown_format.hpp"
#include "render/placement_text.hpp"
#include "simulate/report_markdown.hpp"
#include "markdown_sections.hpp"
#include "text/plural.hpp"

namespace alloclab::lab {
namespace markdown {
namespace {

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
         : verdict == "not measured in this run" ? "– not measured in this run"
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
  std::vector<std::string> unmeasured;  // said once below the table, not a row each
  for (const auto& c : r.claims) {
    const std::string where =
        c.workload.empty() ? "-" : fmt::format("{} / {}", c.workload, c.candidate);
    if (c.verdict == "not measured in this run") {
      const std::string item = fmt::format("{} ({})", c.seed, where);
      if (std::find(unmeasured.begin(), unmeasured.end(), item) == unmeasured.end())
        unmeasured.push_back(item);
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c.seed, c.statement, where,
                      c.metric, c.measured, claim_badge(c.verdict), c.detail);
  }
  md += "\n";
  if (!unmeasured.empty())
    md += fmt::format(
        "Not measured in this run (their cells were not part of it; each claim's `detail` in "
        "results.json names the options that measure it): {} on {}.\n\n",
        counted(static_cast<std::uint64_t>(std::count_if(
                    r.claims.begin(), r.claims.end(),
                    [](const auto& c) { return c.verdict == "not measured in this run"; })),
                "claim"),
        fmt::join(unmeasured, ", "));
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
std::string heading_of_frame_run_alone(const model::document& d, const frame_report** row) {
  if (!d.workloads.empty()) return "";
  for (const report_row& r : frame_reports())
    if (r.part.report_heading != nullptr)
      if (std::string heading = r.part.report_heading(d); !heading.empty()) {
        *row = &r.part;
        return heading;
      }
  return "";
}

// Every frame's section, in report order.
void frame_sections(std::string& md, const model::document& d) {
  for (const report_row* row : frames_in_report_order())
    if (row->part.render_section != nullptr) row->part.render_section(md, d);
}

std::string render_report(const nlohmann::json& results, const report_options& options) {
  return render_report(model::from_json(results), options);
}

std::string render_report(const model::document& d, const report_options& options) {
  const frame_report* alone = nullptr;
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
  md += fmt::format("Run {} · {} × {} × {} · revision {}\n\n", d.created_utc,
                    counted(d.config.workloads.size(), "workload"),
                    counted(d.config.strategies.size(), "strategy", "strategies"),
                    counted(d.config.mallocs.size(), "malloc"), revision_text(d));
  noise_line(md, d);
  for (const report_row* row : frames_in_report_order())
    if (row->part.render_summary != nullptr) row->part.render_summary(md, d);
  frames_section(md, d);
  warnings_section(md, d);
  budget_section(md, d);
  claims_section(md, d, options);
  frame_sections(md, d);
  simulate::simulated_cost_section(md, d);
  failures_section(md, d);
  for (const report_row* row : frames_in_report_order())
    if (row->part.render_details != nullptr) row->part.render_details(md, d);
  method_section(md, d);
  environment_section(md, d);
  if (debug) md += "**DEBUG build — do not publish these numbers.**\n";
  return md;
}

}  // namespace alloclab::lab
