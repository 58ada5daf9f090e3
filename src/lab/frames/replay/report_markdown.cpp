// report.md: the replay frame (issue 10): a recorded trace under each malloc and resource.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

void replay_table(std::string& md, const json& w) {
  const json& t = w["trace"];
  md += fmt::format("### Replay of `{}`\n\n", w["name"].get<std::string>());
  md += fmt::format(
      "Trace {} · {} thread(s) · monotonic footprint {} · arena for the arena resource {}. "
      "Ratios: {} ns per call ÷ the cell's, 95 % bootstrap interval over whole replays in fresh "
      "processes. Peak RSS growth excludes the replay engine's own block table; ideal = the "
      "trace's peak live bytes; fragmentation = growth ÷ ideal; resident after the last free and "
      "after the allocator's purge are above the process's baseline.\n\n",
      t["path"].get<std::string>(), t["threads"].get<std::size_t>(),
      format_bytes(t["monotonic_footprint"].get<double>()),
      format_bytes(t["arena_bytes"].get<double>()), baseline_name(w));
  md += table_head({text_column("malloc / resource"), figure_column("ns per call"),
                    figure_column("vs baseline"), figure_column("total (ms)"),
                    figure_column("peak RSS growth"), figure_column("ideal RSS"),
                    figure_column("fragmentation"), figure_column("after free"),
                    figure_column("after purge"), figure_column("calls (skipped)")});
  for (const auto& c : w["cells"]) {
    const json& rp = c["replay"];
    if (c["status"] != "ok" || rp.is_null()) {
      md += fmt::format("| {} | {} | | | | | | | | |\n", replay_cell_label(c), unmeasured_text(c));
      continue;
    }
    const json& m = rp["memory"];
    const std::string ratio = is_baseline(w, c) ? "baseline" : speedup_text(c);
    md += fmt::format(
        "| {} | {:.1f} | {} | {:.1f} | {} | {} | {} | {} | {} | {} ({}) |\n", replay_cell_label(c),
        rp["ns_per_call"]["median"].get<double>(), ratio, rp["total_ms"]["median"].get<double>(),
        spread_text(m["peak_rss_growth_bytes"]), format_bytes(m["ideal_rss_bytes"].get<double>()),
        format_number_or_dash(m["fragmentation"], "{:.2f}"), spread_text(m["rss_after_free_bytes"]),
        spread_text(m["rss_after_purge_bytes"]), rp["calls"].get<std::uint64_t>(),
        rp["skipped_calls"].get<std::uint64_t>());
  }
  md += "\n";
}

}  // namespace

void replay_section(std::string& md, const json& r) {
  bool any = false;
  for (const auto& w : r["workloads"])
    if (w.value("kind", "") == "trace") {
      if (!any) md += "## Replay of recorded traces\n\n";
      any = true;
      replay_table(md, w);
    }
}

}  // namespace alloclab::lab::markdown
