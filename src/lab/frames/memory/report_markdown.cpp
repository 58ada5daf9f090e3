// report.md: the memory frame (issue 12): budget compliance and huge-page coverage.
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string throughput_vs_first(const json& frame) {
  const json& vs = frame["vs_first_strategy"];
  if (vs.is_null() || vs["throughput_ratio"].is_null()) return "baseline";
  const json& e = vs["throughput_ratio"];
  return ratio_text(e["value"].get<double>(), e["interval"]);
}

void budget_events(std::string& md, const json& cell) {
  const json& b = cell["memory_frame"]["budget"];
  const json& events = b["events"];
  md += fmt::format("\n{} @ {}: {} events in process 1", cell["strategy"].get<std::string>(),
                    cell["malloc"].get<std::string>(), events.size());
  const std::size_t shown = std::min<std::size_t>(events.size(), 8);
  md += shown < events.size() ? fmt::format(" (first {})", shown) : std::string();
  md += shown == 0 ? ".\n" : ":\n\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const json& e = events[i];
    const bool purge = e["kind"] == "service_purge";
    md += fmt::format(
        "- {:.0f} ms: {} at {:.0f} % of the budget{}\n", e["t_ms"].get<double>(),
        purge ? std::string("service purge (quiescent point)")
              : fmt::format("{} → {}", e["from"].get<std::string>(), e["to"].get<std::string>()),
        100 * e["fraction"].get<double>(),
        purge ? fmt::format(", usage after {}",
                            format_bytes(e["usage_after_bytes"].is_null()
                                             ? 0.0
                                             : e["usage_after_bytes"].get<double>()))
              : (e["purged"].get<bool>() ? ", purged" : ""));
  }
}

// A row for a cell without memory-frame figures (both tables have eight columns); false when
// the cell has figures to show.
bool unmeasured_row(std::string& md, const json& c) {
  const std::string state = cell_state(c);
  if (state.empty() && !c["memory_frame"].is_null()) return false;
  md += fmt::format("| {} | {} | {} | | | | | |\n", c["malloc"].get<std::string>(),
                    c["strategy"].get<std::string>(), state.empty() ? "-" : state);
  return true;
}

void budget_table(std::string& md, const json& w) {
  const json& spec = w["memory_spec"];
  md += fmt::format(
      "### Budget: `budget_bursts` against {} ({})\n\n"
      "Peak usage is the highest 10 ms sample of what the budget reads (RSS, or the cgroup's "
      "usage when the budget is the cgroup's limit). Over soft: share of the run at or above "
      "90 % of the budget (median over repetitions). Throughput: this strategy's requests per "
      "second ÷ `no_watcher`'s under the same malloc, 95 % bootstrap interval over repetitions "
      "(< 1: trimming costs).\n\n",
      format_bytes(spec.value("budget_bytes", 0.0)), spec.value("budget_source", std::string()));
  md += table_head({text_column("malloc"), text_column("strategy"), figure_column("peak usage"),
                    figure_column("peak ÷ budget"), figure_column("over soft"),
                    figure_column("throughput vs no_watcher"), figure_column("crossings"),
                    figure_column("purges (watcher / service)")});
  std::vector<const json*> trimmed;
  for (const auto& c : w["cells"]) {
    if (unmeasured_row(md, c)) continue;
    const json& b = c["memory_frame"]["budget"];
    if (b["watcher"].get<bool>()) trimmed.push_back(&c);
    md +=
        fmt::format("| {} | {} | {} | {:.2f} | {:.0f} % | {} | {} | {} / {} |\n",
                    c["malloc"].get<std::string>(), c["strategy"].get<std::string>(),
                    format_bytes(b["peak_usage_bytes"].get<double>()),
                    b["peak_fraction"].get<double>(), 100 * b["time_over_soft_share"].get<double>(),
                    throughput_vs_first(c["memory_frame"]), b["crossings"].get<std::size_t>(),
                    b["watcher_purges"].get<std::size_t>(), b["service_purges"].get<std::size_t>());
  }
  if (!trimmed.empty()) md += "\nWhat the watcher did, and when (ms since the worker started):\n";
  for (const json* c : trimmed) budget_events(md, *c);
  md += "\n";
}

void huge_page_table(std::string& md, const json& w) {
  md += fmt::format(
      "### Huge pages: `huge_table` ({} table, random read-modify-writes)\n\n"
      "Time per batch of 4096 accesses at p50; speed = `plain_pages` mean ÷ this cell's, 95 % "
      "interval over repetitions. Backed: the table's `AnonHugePages` in `/proc/self/smaps` "
      "after filling it (lowest over the processes).\n\n",
      format_bytes(w["memory_spec"].value("table_bytes", 0.0)));
  md += table_head({text_column("malloc"), text_column("strategy"), text_column("backing"),
                    figure_column("backed by huge pages"), figure_column("p50 / 4096 accesses"),
                    figure_column("speed vs plain_pages"), figure_column("fill faults"),
                    text_column("dTLB load misses")});
  for (const auto& c : w["cells"]) {
    if (unmeasured_row(md, c)) continue;
    const json& h = c["memory_frame"]["huge_pages"];
    md += fmt::format(
        "| {} | {} | {} | {:.0f} % | {} | {} | {} | {} |\n", c["malloc"].get<std::string>(),
        c["strategy"].get<std::string>(), h["backing"].get<std::string>(),
        100 * h["huge_backed_share_lowest"].get<double>(), format_ns(c["timing"]["p50_ns"]),
        throughput_vs_first(c["memory_frame"]), h["fill_minor_faults"].get<std::uint64_t>(),
        h["dtlb_load_misses"].is_null() ? h["dtlb_load_misses_note"].get<std::string>()
                                        : format_count(h["dtlb_load_misses"].get<double>()));
  }
  md += "\n";
}

}  // namespace

void memory_section(std::string& md, const json& r) {
  const json* budget = workload_named(r["workloads"], "budget_bursts", "memory");
  const json* table = workload_named(r["workloads"], "huge_table", "memory");
  if (budget == nullptr && table == nullptr) return;
  md += "## Memory frame\n\n";
  if (budget != nullptr) budget_table(md, *budget);
  if (table != nullptr) huge_page_table(md, *table);
}

}  // namespace alloclab::lab::markdown
