// report.md's account of the run's time (results.json's `budget`: what the budget bought, what is
// still open, where the spread is) and its noise line under the title (`noise`); the console
// summary's lines for both. From the results document alone.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "model/document.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string minutes_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s % 60 == 0 ? fmt::format("{}m", s / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string percent(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", 100 * *v) : std::string("-");
}

std::string interval_of(const json& c) {
  if (!c["value"].is_number()) return "-";
  if (!c["low"].is_number() || !c["high"].is_number())
    return fmt::format("{:.3g}× (spread unknown)", c["value"].get<double>());
  return ratio_text(c["value"].get<double>(), {{"low", c["low"]}, {"high", c["high"]}});
}

// "3 comparisons still open; `--budget 15m` would likely decide 2 of them".
std::string open_sentence(const json& b) {
  const std::size_t open = b["open"];
  if (open == 0) return "every comparison is decided";
  std::string text =
      fmt::format("{} comparison{} still inside the noise", open, open == 1 ? " is" : "s are");
  const json& more = b["more_budget"];
  if (more.is_object() && b["budget_seconds"].is_number())
    text += fmt::format("; `--budget {}` would likely decide {} of them",
                        minutes_text(more["budget_seconds"].get<double>()),
                        more["would_likely_decide"].get<std::size_t>());
  return text;
}

void rounds_table(std::string& md, const json& b) {
  md += table_head({figure_column("look"), figure_column("processes before it"),
                    figure_column("elapsed"), figure_column("decided"), figure_column("open")});
  for (const auto& r : b["rounds"])
    md += fmt::format("| {} | {} | {:.0f} s | {} | {} |\n", r["look"].get<std::size_t>(),
                      r["processes"].get<std::size_t>(), r["elapsed_seconds"].get<double>(),
                      r["decided"].get<std::size_t>(), r["open"].get<std::size_t>());
  md += "\n";
}

void open_table(std::string& md, const json& b) {
  std::vector<const json*> open;
  for (const auto& c : b["comparisons"])
    if (c["state"] == "open") open.push_back(&c);
  if (open.empty()) return;
  md += fmt::format("Still open ({}; claims and peers first):\n\n", open.size());
  std::stable_sort(open.begin(), open.end(), [](const json* x, const json* y) {
    return (*x)["kind"] != "vs_std" && (*y)["kind"] == "vs_std";
  });
  md += table_head({text_column("comparison"), text_column("boundaries"),
                    figure_column("ratio [stop-rule interval]"), figure_column("processes"),
                    figure_column("would need per side")});
  for (std::size_t i = 0; i < open.size() && i < 25; ++i) {
    const json& c = *open[i];
    std::string bounds;
    for (const auto& v : c["boundaries"])
      bounds += fmt::format("{}{:.3g}", bounds.empty() ? "" : ", ", v.get<double>());
    const json& p = c["processes"];
    md += fmt::format(
        "| {} | {} | {} | {} | {} |\n", c["id"].get<std::string>(), bounds, interval_of(c),
        p.size() == 2 ? fmt::format("{} + {}", p[0].get<std::size_t>(), p[1].get<std::size_t>())
                      : std::string("-"),
        c["processes_needed"].is_number() ? std::to_string(c["processes_needed"].get<std::size_t>())
                                          : std::string("more than a cell may get"));
  }
  if (open.size() > 25) md += fmt::format("\n… and {} more in results.json.\n", open.size() - 25);
  md += "\n";
}

// Per workload: processes, samples per repetition, and the spread between and within processes.
void spread_table(std::string& md, const std::vector<model::workload_spread>& rows) {
  md += table_head({text_column("frame / workload"), figure_column("cells"),
                    figure_column("processes per cell"), figure_column("samples per repetition"),
                    figure_column("between-process CV (median)"),
                    figure_column("within-process CV (median)"),
                    figure_column("cells where between dominates")});
  for (const model::workload_spread& r : rows)
    md += fmt::format(
        "| {} {} | {} | {}–{} | {} | {} | {} | {} |\n", r.frame, r.workload, r.cells,
        r.processes_min, r.processes_max,
        r.samples_min ? fmt::format("{}–{}", *r.samples_min, *r.samples_max) : std::string("-"),
        percent(r.between_cv_median), percent(r.within_cv_median), r.between_dominates);
  md += "\n";
}

}  // namespace

void noise_line(std::string& md, const json& r) {
  const json& n = r.value("noise", json());
  if (!n.is_object()) return;
  const json& s = n["settings"];
  const auto governors = s["governors"].get<std::vector<std::string>>();
  std::string line = fmt::format(
      "Machine: {} CPUs, governor {}, boost {}, THP {}, ASLR {}", s["cpus"].get<int>(),
      governors.empty() ? "not readable" : fmt::format("{}", fmt::join(governors, "/")),
      s["boost"].is_boolean() ? (s["boost"].get<bool>() ? "on" : "off") : "not readable",
      s["transparent_hugepages"].is_string() ? s["transparent_hugepages"].get<std::string>()
                                             : "not readable",
      s["aslr"].is_number() ? std::to_string(s["aslr"].get<int>()) : "not readable");
  if (n["before"].is_object() && n["before"]["load_1min"].is_number())
    line += fmt::format(" · load {:.2f} before", n["before"]["load_1min"].get<double>());
  if (n["during"].is_object())
    line += fmt::format(", other processes {:.2f} CPUs and steal {:.1f} % during",
                        n["during"]["other_cpus"].get<double>(),
                        100 * n["during"]["steal_share"].get<double>());
  md += "> " + line + (n["busy"].get<bool>() ? " · **⚠ busy machine**: see Warnings" : "") + "\n\n";
}

void budget_section(std::string& md, const json& r, const model::document& d) {
  const json& b = r.value("budget", json());
  if (!b.is_object()) return;
  const json& rule = b["stop_rule"];
  md += "## Budget: what the run's time bought\n\n";
  if (b["mode"] == "budget" && b["budget_seconds"].is_number())
    md += fmt::format(
        "Budget {} (`--budget`), spent {:.0f} s on {} cell processes in {} looks; stopped: {}. "
        "{}.\n\n",
        minutes_text(b["budget_seconds"].get<double>()), b["spent_seconds"].get<double>(),
        b["processes"].get<std::size_t>(), b["rounds"].size(), b["stopped"].get<std::string>(),
        open_sentence(b));
  else
    md += fmt::format(
        "The fixed plan (`--full` or sizes given): {} cell processes, judged once at "
        "the end. {}.\n\n",
        b["processes"].get<std::size_t>(), open_sentence(b));
  if (const json& planned = b.value("planned_after_first_round", json()); planned.is_object())
    md += fmt::format(
        "After the first round ({:.0f} s, {:.0f} s of the budget left) the run fixed its rest, "
        "before any look: {} more round{}, up to {} processes a cell, {} looks.\n\n",
        planned["first_round_seconds"].get<double>(), planned["seconds_left"].get<double>(),
        planned["rounds"].get<std::size_t>(), planned["rounds"].get<std::size_t>() == 1 ? "" : "s",
        planned["max_processes"].get<std::size_t>(), planned["looks"].get<std::size_t>());
  md += fmt::format(
      "Stop rule: {} ({} look{}, each interval at {:.4g} %, so a false decision has at most {:.0f} "
      "% chance however often the run looked; {}). Decided: {}; open: {}; without a number: "
      "{}. Claims are judged on these intervals.\n\n",
      rule["name"].get<std::string>(), rule["looks"].get<std::size_t>(),
      rule["looks"].get<std::size_t>() == 1 ? "" : "s", 100 * rule["confidence"].get<double>(),
      100 * rule["alpha"].get<double>(), rule["simulation"].get<std::string>(),
      b["decided"].get<std::size_t>(), b["open"].get<std::size_t>(),
      b["unmeasurable"].get<std::size_t>());
  if (!b["rounds"].empty()) rounds_table(md, b);
  open_table(md, b);
  md +=
      "Where the spread is (the figure each cell's comparison is judged on; CVs from the "
      "variance of log figures):\n\n";
  spread_table(md, *(*d.budget)->spread);
}

std::string budget_headline(const json& r) {
  const json& b = r.value("budget", json());
  if (!b.is_object() || b["mode"] != "budget" || !b["budget_seconds"].is_number()) return {};
  return fmt::format("budget {}: {:.0f} s, {} cell processes, {} comparisons decided; {}\n",
                     minutes_text(b["budget_seconds"].get<double>()),
                     b["spent_seconds"].get<double>(), b["processes"].get<std::size_t>(),
                     b["decided"].get<std::size_t>(), open_sentence(b));
}

}  // namespace alloclab::lab::markdown
