// `alloclab compare`'s output: text for the terminal, markdown and HTML for -o.
#include <algorithm>

#include <fmt/format.h>

#include "compare/compare.hpp"
#include "render/html.hpp"
#include "render/units.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string ns_or_dash(const std::optional<double>& ns) {
  return ns ? format_ns(*ns) : "-";
}

// The lab's one convention: A ÷ B (> 1: B is faster), though the rows hold B ÷ A.
std::string ratio_text(const cell_change& row) {
  if (!row.ratio || !(*row.ratio > 0)) return "-";
  if (!row.interval || !(row.interval->low > 0))
    return ratio_with_interval(1 / *row.ratio, std::nullopt, std::nullopt, "x");
  return ratio_with_interval(1 / *row.ratio, 1 / row.interval->high, 1 / row.interval->low, "x");
}

std::string p_text(const cell_change& row) {
  return row.p_value ? fmt::format("{:.3g}", *row.p_value) : "-";
}

std::string change_text(const cell_change& row) {
  if (!row.ratio) return row.note;
  const std::string percent = fmt::format("B's time {:+.1f} %", (*row.ratio - 1) * 100);
  return row.significant ? fmt::format("{}, {}", row.decision, percent)
                         : fmt::format("{} ({})", row.decision, percent);
}

// What counts as a change, with the threshold this comparison used.
std::string decision_rule_text(const comparison& c) {
  return fmt::format(
      "ratios A ÷ B (> 1: B is faster); a change is decided when the U test over repetition "
      "medians gives p < {} and the 95 % interval lies wholly beyond the noise floor of {} % "
      "(--noise-floor); the same within it when the interval lies inside; open otherwise",
      significance_alpha, c.noise_floor_percent);
}

std::string cell_name(const compared_cell& cell) {
  return fmt::format("{} / {} @ {}", cell.workload, cell.strategy, cell.malloc);
}

// Cells only in A, then only in B.
const std::pair<const char*, const std::vector<compared_cell> comparison::*> one_sided[] = {
    {"A", &comparison::only_a}, {"B", &comparison::only_b}};

}  // namespace

std::string render_comparison_text(const comparison& c) {
  std::string out =
      fmt::format("A: {} ({})\nB: {} ({})\n", c.a, c.a_created_utc, c.b, c.b_created_utc);
  for (const auto& w : c.warnings) out += "warning: " + w + "\n";
  out += decision_rule_text(c) + "\n";
  std::size_t width = 4;
  for (const auto& row : c.common) width = std::max(width, cell_name(row.cell).size());
  out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>24}  {:>8}  {}\n", "cell", width, "A p50", "B p50",
                     "A÷B [95% interval]", "U p", "change");
  for (const auto& row : c.common)
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>24}  {:>8}  {}\n", cell_name(row.cell), width,
                       ns_or_dash(row.a_p50_ns), ns_or_dash(row.b_p50_ns), ratio_text(row),
                       p_text(row), change_text(row));
  for (const auto& [side, cells] : one_sided)
    for (const auto& cell : c.*cells)
      out += fmt::format("only in {}: {} ({})\n", side, cell_name(cell), cell.status);
  return out;
}

std::string render_comparison_markdown(const comparison& c) {
  std::string md = "# alloclab compare\n\n";
  md += fmt::format("- **A**: `{}` ({})\n- **B**: `{}` ({})\n\n", c.a, c.a_created_utc, c.b,
                    c.b_created_utc);
  if (!c.warnings.empty()) {
    md += "## Warnings: these runs are not like for like\n\n";
    for (const auto& w : c.warnings) md += "- " + w + "\n";
    md += "\n";
  }
  md += decision_rule_text(c) + "\n\n";
  md +=
      "## Cells in both\n\nA ÷ B at p50 (> 1: B is faster), with the 95 % bootstrap interval of "
      "median(A) ÷ median(B) over repetitions and the Mann-Whitney U p over the repetition "
      "medians (two-sided).\n\n| cell | A p50 | B p50 | A ÷ B [95 % interval] | U p | change "
      "|\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& row : c.common)
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell_name(row.cell),
                      ns_or_dash(row.a_p50_ns), ns_or_dash(row.b_p50_ns), ratio_text(row),
                      p_text(row), change_text(row));
  for (const auto& [side, cells] : one_sided) {
    if ((c.*cells).empty()) continue;
    md += fmt::format("\n## Cells only in {}\n\n| cell | status |\n|---|---|\n", side);
    for (const auto& cell : c.*cells)
      md += fmt::format("| {} | {} |\n", cell_name(cell), cell.status);
  }
  return md;
}

std::string render_comparison_html(const comparison& c) {
  const std::string tables = markdown_to_html(render_comparison_markdown(c));
  std::size_t first_section = tables.find("<h2");
  if (first_section == std::string::npos) first_section = tables.size();
  const std::string body = "<main>\n" + tables.substr(0, first_section) +
                           "<section id=\"charts\"><div id=\"chart-list\"></div></section>\n" +
                           tables.substr(first_section) + "</main>";
  json data = json::object();
  model::write_fields(c, data);
  return html_page("alloclab compare", body,
                   {{"workloads", json::array()}, {"config", json::object()}, {"comparison", data}},
                   true);
}

}  // namespace alloclab::lab
