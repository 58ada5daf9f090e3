#include "compare/compare.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "frames/frame_table.hpp"
#include "plan/request.hpp"
#include "render/html.hpp"
#include "render/units.hpp"
#include "results/results_builder.hpp"
#include "stats/decision.hpp"
#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

// What must match for two runs to be compared like for like; a difference is a warning.
constexpr const char* machine_keys[] = {"cpu_model", "logical_cpus", "usable_cpus",
                                        "governor",  "kernel",       "machine",
                                        "glibc",     "clocksource",  "transparent_hugepages"};
constexpr const char* build_keys[] = {"compiler", "cxx_flags", "build_type", "build"};
constexpr const char* config_keys[] = {"samples_per_repetition", "repetitions", "processes", "seed",
                                       "quick"};

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

template <std::size_t N>
void warn_on_differences(json& warnings, const char* what, const json& a, const json& b,
                         const char* const (&keys)[N]) {
  for (const char* key : keys) {
    const json va = a.value(key, json()), vb = b.value(key, json());
    if (va != vb)
      warnings.push_back(fmt::format("different {}: {} is '{}' in A, '{}' in B", what, key,
                                     value_text(va), value_text(vb)));
  }
}

std::string cell_key(const json& w, const json& c) {
  return fmt::format("{} / {} @ {}", w.at("name").get<std::string>(),
                     c.at("strategy").get<std::string>(), c.value("malloc", std::string("glibc")));
}

struct cell_ref {
  std::string key;
  const json* workload;
  const json* cell;
};

std::vector<cell_ref> cells_of(const json& results) {
  std::vector<cell_ref> out;
  for (const auto& w : results.at("workloads"))
    for (const auto& c : w.at("cells")) out.push_back({cell_key(w, c), &w, &c});
  return out;
}

const cell_ref* find(const std::vector<cell_ref>& cells, const std::string& key) {
  for (const auto& c : cells)
    if (c.key == key) return &c;
  return nullptr;
}

json identity(const cell_ref& r) {
  return {{"workload", (*r.workload)["name"]},
          {"strategy", (*r.cell)["strategy"]},
          {"malloc", r.cell->value("malloc", std::string("glibc"))},
          {"status", (*r.cell)["status"]}};
}

std::vector<double> medians(const json& cell) {
  return cell.at("timing").at("repetition_medians_ns").get<std::vector<double>>();
}

json compare_cell(const cell_ref& a, const cell_ref& b, double noise_floor) {
  json row = identity(b);
  row["a_status"] = (*a.cell)["status"];
  row["ratio"] = nullptr;
  row["interval"] = nullptr;
  row["p_value"] = nullptr;
  row["significant"] = false;
  row["decision"] = to_string(difference::too_few);
  row["mark"] = "";
  const json& ta = (*a.cell)["timing"];
  const json& tb = (*b.cell)["timing"];
  if (ta.is_null() || tb.is_null()) {
    row["note"] =
        fmt::format("no timing in {}", ta.is_null() ? (tb.is_null() ? "either" : "A") : "B");
    return row;
  }
  row["a_p50_ns"] = ta["p50_ns"];
  row["b_p50_ns"] = tb["p50_ns"];
  row["note"] = "";
  const double a50 = ta["p50_ns"], b50 = tb["p50_ns"];
  if (a50 <= 0) return row;
  row["ratio"] = b50 / a50;
  const std::vector<double> ma = medians(*a.cell), mb = medians(*b.cell);
  const interval range = bootstrap_ratio_of_medians(mb, ma);
  if (range.high > 0) row["interval"] = {{"low", range.low}, {"high", range.high}};
  if (!ma.empty() && !mb.empty()) {
    const mann_whitney_result u = mann_whitney_u(ma, mb);
    const bool power = mann_whitney_min_p(ma.size(), mb.size()) < significance_alpha;
    const difference d = judge_difference(u.p_value, power, range, noise_floor);
    row["p_value"] = u.p_value;
    row["decision"] = to_string(d);
    row["significant"] = d == difference::higher || d == difference::lower;
    row["mark"] = significance_mark(u.p_value, power);
  }
  return row;
}

std::string ratio_text(const json& row) {
  if (row["ratio"].is_null()) return "-";
  std::string text = fmt::format("{:.3f}", row["ratio"].get<double>());
  if (row["interval"].is_object())
    text += fmt::format(" [{:.3f}, {:.3f}]", row["interval"]["low"].get<double>(),
                        row["interval"]["high"].get<double>());
  return text;
}

std::string p_text(const json& row) {
  return row["p_value"].is_null() ? "-" : fmt::format("{:.3g}", row["p_value"].get<double>());
}

std::string change_text(const json& row) {
  if (row["ratio"].is_null()) return row.value("note", std::string("-"));
  const double percent = (row["ratio"].get<double>() - 1) * 100;
  const std::string direction = percent > 0 ? "slower" : "faster";
  if (!row["significant"].get<bool>())
    return fmt::format("{:+.1f}% (not significant: {})", percent,
                       row.value("decision", std::string("inside the noise")));
  return fmt::format("{:+.1f}% {} {}", percent, direction, row["mark"].get<std::string>());
}

// What counts as a change, with the threshold this comparison used.
std::string decision_rule_text(const json& c) {
  return fmt::format(
      "a change counts when the U test over repetition medians gives p < {} and the 95 % interval "
      "of B / A lies wholly beyond the noise floor of {} % (--noise-floor)",
      significance_alpha, c.value("noise_floor_percent", 0.0));
}

std::string cell_name(const json& row) {
  return fmt::format("{} / {} @ {}", row["workload"].get<std::string>(),
                     row["strategy"].get<std::string>(), row["malloc"].get<std::string>());
}

// A run of a frame measured by its own command (`alloclab try`) is compared like any run: the
// frame's row adds its figures as cells (frame_module::add_compare_cells).
json with_frame_cells(json results) {
  for (const auto& row : frame_table())
    if (row.add_compare_cells != nullptr) row.add_compare_cells(results);
  return results;
}

}  // namespace

json compare_results(const json& a_document, const json& b_document, const std::string& a_name,
                     const std::string& b_name, double noise_floor_percent) {
  const json a = with_frame_cells(a_document), b = with_frame_cells(b_document);
  const std::vector<cell_ref> cells_a = cells_of(a), cells_b = cells_of(b);
  json out = {{"a", a_name},
              {"b", b_name},
              {"a_created_utc", a.value("created_utc", std::string())},
              {"b_created_utc", b.value("created_utc", std::string())},
              {"warnings", json::array()},
              {"common", json::array()},
              {"only_a", json::array()},
              {"only_b", json::array()},
              {"noise_floor_percent", noise_floor_percent}};
  warn_on_differences(out["warnings"], "machine", a.at("environment"), b.at("environment"),
                      machine_keys);
  warn_on_differences(out["warnings"], "build", a.at("environment"), b.at("environment"),
                      build_keys);
  warn_on_differences(out["warnings"], "config", a.at("config"), b.at("config"), config_keys);
  for (const auto& [side, results] : {std::pair{"A", &a}, std::pair{"B", &b}})
    if (results->value("smoke_test", false))
      out["warnings"].push_back(fmt::format(
          "{} is a smoke test (--quick): its few samples make small differences noise", side));
  if (a.value("debug_build", false) || b.value("debug_build", false))
    out["warnings"].push_back("a DEBUG build is involved: its numbers are meaningless");
  out["revisions"] = {a["environment"].value("git_revision", json()),
                      b["environment"].value("git_revision", json())};
  for (const auto& ca : cells_a) {
    if (const cell_ref* cb = find(cells_b, ca.key))
      out["common"].push_back(compare_cell(ca, *cb, noise_floor_percent / 100));
    else
      out["only_a"].push_back(identity(ca));
  }
  for (const auto& cb : cells_b)
    if (find(cells_a, cb.key) == nullptr) out["only_b"].push_back(identity(cb));
  if (out["common"].empty())
    throw usage_error(fmt::format(
        "'{}' and '{}' have no cell (workload, strategy, malloc) in common", a_name, b_name));
  return out;
}

std::size_t regressions(const json& comparison, double percent) {
  return static_cast<std::size_t>(
      std::count_if(comparison["common"].begin(), comparison["common"].end(), [&](const json& row) {
        return row["decision"] == to_string(difference::higher) && !row["ratio"].is_null() &&
               row["ratio"].get<double>() > 1 + percent / 100;
      }));
}

std::string render_comparison_text(const json& c) {
  std::string out = fmt::format("A: {} ({})\nB: {} ({})\n", c["a"].get<std::string>(),
                                c["a_created_utc"].get<std::string>(), c["b"].get<std::string>(),
                                c["b_created_utc"].get<std::string>());
  for (const auto& w : c["warnings"]) out += "warning: " + w.get<std::string>() + "\n";
  out += decision_rule_text(c) + "\n";
  std::size_t width = 4;
  for (const auto& row : c["common"]) width = std::max(width, cell_name(row).size());
  out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>24}  {:>8}  {}\n", "cell", width, "A p50", "B p50",
                     "B/A [95% interval]", "U p", "change");
  for (const auto& row : c["common"])
    out += fmt::format("{:<{}}  {:>10}  {:>10}  {:>24}  {:>8}  {}\n", cell_name(row), width,
                       format_ns_or_dash(row.value("a_p50_ns", json())),
                       format_ns_or_dash(row.value("b_p50_ns", json())), ratio_text(row),
                       p_text(row), change_text(row));
  for (const char* side : {"only_a", "only_b"})
    for (const auto& row : c[side])
      out += fmt::format("only in {}: {} ({})\n", side == std::string("only_a") ? "A" : "B",
                         cell_name(row), row["status"].get<std::string>());
  return out;
}

std::string render_comparison_markdown(const json& c) {
  std::string md = "# alloclab compare\n\n";
  md += fmt::format("- **A**: `{}` ({})\n- **B**: `{}` ({})\n\n", c["a"].get<std::string>(),
                    c["a_created_utc"].get<std::string>(), c["b"].get<std::string>(),
                    c["b_created_utc"].get<std::string>());
  if (!c["warnings"].empty()) {
    md += "## Warnings: these runs are not like for like\n\n";
    for (const auto& w : c["warnings"]) md += "- " + w.get<std::string>() + "\n";
    md += "\n";
  }
  md += decision_rule_text(c) + "\n\n";
  md +=
      "## Cells in both\n\nB ÷ A at p50 (< 1: B is faster), with the 95 % bootstrap interval of "
      "median(B) ÷ median(A) over repetitions and the Mann-Whitney U p over the repetition "
      "medians (two-sided; `**` p < 0.01, `*` p < 0.05, `?` too few repetitions to reach "
      "significance).\n\n| cell | A p50 | B p50 | B ÷ A [95 % interval] | U p | change "
      "|\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& row : c["common"])
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell_name(row),
                      format_ns_or_dash(row.value("a_p50_ns", json())),
                      format_ns_or_dash(row.value("b_p50_ns", json())), ratio_text(row),
                      p_text(row), change_text(row));
  for (const char* side : {"only_a", "only_b"}) {
    if (c[side].empty()) continue;
    md += fmt::format("\n## Cells only in {}\n\n| cell | status |\n|---|---|\n",
                      side == std::string("only_a") ? "A" : "B");
    for (const auto& row : c[side])
      md += fmt::format("| {} | {} |\n", cell_name(row), row["status"].get<std::string>());
  }
  return md;
}

std::string render_comparison_html(const json& c) {
  const std::string tables = markdown_to_html(render_comparison_markdown(c));
  std::size_t first_section = tables.find("<h2");
  if (first_section == std::string::npos) first_section = tables.size();
  const std::string body = "<main>\n" + tables.substr(0, first_section) +
                           "<section id=\"charts\"><div id=\"chart-list\"></div></section>\n" +
                           tables.substr(first_section) + "</main>";
  return html_page("alloclab compare", body,
                   {{"workloads", json::array()}, {"config", json::object()}, {"comparison", c}},
                   true);
}

}  // namespace alloclab::lab
