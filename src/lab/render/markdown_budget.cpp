// report.md's account of the run's time (results.json's `budget`: what the budget bought, what is
// still open, where the spread is) and its noise line under the title (`noise`); the console
// summary's lines for both. From the results document alone.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "markdown_format.hpp"
#include "markdown_sections.hpp"
#include "model/document.hpp"
#include "text/plural.hpp"

namespace alloclab::lab::markdown {
namespace {

std::string minutes_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  return s % 60 == 0 ? fmt::format("{}m", s / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string percent(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", 100 * *v) : std::string("-");
}

std::string interval_of(const model::budget_comparison& c) {
  if (!c.value) return "-";
  if (!c.low || !c.high) return fmt::format("{:.3g}× (spread unknown)", *c.value);
  return ratio_text(*c.value, model::interval{*c.low, *c.high});
}

std::string capitalised(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

// "3 comparisons still open; `--budget 15m` would likely decide 2 of them".
std::string open_sentence(const model::budget_facts& b) {
  if (b.open == 0) return "every comparison is decided";
  std::string text =
      fmt::format("{} comparison{} still inside the noise", b.open, b.open == 1 ? " is" : "s are");
  if (b.more_budget && b.budget_seconds)
    text += fmt::format("; `--budget {}` would likely decide {} of them",
                        minutes_text(b.more_budget->budget_seconds),
                        b.more_budget->would_likely_decide);
  return text;
}

void rounds_table(std::string& md, const model::budget_facts& b) {
  md += table_head({figure_column("look"), figure_column("processes before it"),
                    figure_column("elapsed"), figure_column("decided"), figure_column("open")});
  for (const auto& r : b.rounds)
    md += fmt::format("| {} | {} | {:.0f} s | {} | {} |\n", r.look, r.processes, r.elapsed_seconds,
                      r.decided, r.open);
  md += "\n";
}

// The most processes a cell may get in a budgeted run (planned after its first round), if known.
std::optional<std::size_t> cell_cap(const model::budget_facts& b) {
  if (b.mode != "budget" || !b.planned_after_first_round || !*b.planned_after_first_round)
    return std::nullopt;
  return (**b.planned_after_first_round).max_processes;
}

// The most an open comparison could stand on with `cap` processes a cell: processes per side,
// or ring runs when paired (a run counts only when both sides run in it, so no more than the
// side nearer the cap has left: a shared baseline near the cap ends its candidates' pairs).
std::size_t reachable(const model::budget_comparison& c, std::size_t cap) {
  const std::size_t runs = c.paired_runs.value_or(0);
  if (runs == 0 || c.processes.size() != 2) return cap;
  const auto room = [cap](std::size_t p) { return cap > p ? cap - p : 0; };
  return runs + std::min(room(c.processes[0]), room(c.processes[1]));
}

// Needs more than a cell may get: the scheduler spends no more processes on it.
bool beyond_cap(const model::budget_comparison& c, const std::optional<std::size_t>& cap) {
  return cap && c.processes_needed && *c.processes_needed > *cap;
}

// "14 ring runs"; "needs 56 ring runs, cap 32 (at most 16 here)" when the cap on a cell's
// processes keeps it from deciding (the budget no longer spends on it); "needs 28 ring runs, at
// most 8 here (cap 32)" when its cells' processes left do.
std::string needed_text(const model::budget_comparison& c, const std::optional<std::size_t>& cap) {
  if (!c.processes_needed) return "more than a cell may get";
  const std::size_t needed = *c.processes_needed;
  const bool paired = c.paired_runs.value_or(0) > 0;
  const std::string what =
      paired ? counted(needed, "ring run") : counted(needed, "process", "processes") + " per side";
  if (!cap || needed <= reachable(c, *cap)) return what;
  const std::size_t reach = reachable(c, *cap);
  if (!beyond_cap(c, cap))
    return fmt::format("needs {}, at most {} here (cap {})", what, reach, *cap);
  return fmt::format("needs {}, cap {}{}", what, *cap,
                     reach < *cap ? fmt::format(" (at most {} here)", reach) : std::string());
}

std::string open_row(const model::budget_comparison& c, const std::optional<std::size_t>& cap) {
  std::string bounds;
  for (const double v : c.boundaries)
    bounds += fmt::format("{}{:.3g}", bounds.empty() ? "" : ", ", v);
  const auto& p = c.processes;
  return fmt::format("| {} | {} | {} | {} | {} |\n", c.id, bounds, interval_of(c),
                     p.size() == 2 ? fmt::format("{} + {}", p[0], p[1]) : std::string("-"),
                     needed_text(c, cap));
}

void open_table(std::string& md, const model::budget_facts& b) {
  std::vector<const model::budget_comparison*> open;
  for (const auto& c : b.comparisons)
    if (c.state == "open") open.push_back(&c);
  if (open.empty()) return;
  const std::optional<std::size_t> cap = cell_cap(b);
  md += fmt::format("Still open ({}; claims and peers first):\n\n", open.size());
  const auto starved =
      std::count_if(open.begin(), open.end(), [&](const auto* c) { return beyond_cap(*c, cap); });
  if (starved > 0)
    md += fmt::format(
        "{} of them {} more ring runs (or processes) than the cap of {} processes a cell allows: "
        "their spread between runs is too wide for how near they lie to 1 and to their "
        "equivalence margin, and the budget stopped spending on them.\n\n",
        starved, plural(static_cast<std::uint64_t>(starved), "needs", "need"), *cap);
  std::stable_sort(open.begin(), open.end(),
                   [](const model::budget_comparison* x, const model::budget_comparison* y) {
                     return x->kind != "vs_std" && y->kind == "vs_std";
                   });
  md += table_head({text_column("comparison"), text_column("boundaries"),
                    figure_column("ratio [stop-rule interval]"), figure_column("processes"),
                    figure_column("would need")});
  for (std::size_t i = 0; i < open.size() && i < 25; ++i) md += open_row(*open[i], cap);
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

void noise_line(std::string& md, const model::document& r) {
  if (!r.noise || !*r.noise) return;
  const model::noise_gate& n = **r.noise;
  const model::host_settings_facts& s = n.settings;
  std::string line = fmt::format(
      "Machine: {} CPUs, governor {}, boost {}, THP {}, ASLR {}", s.cpus,
      s.governors.empty() ? "not readable" : fmt::format("{}", fmt::join(s.governors, "/")),
      s.boost ? (*s.boost ? "on" : "off") : "not readable",
      s.transparent_hugepages.value_or("not readable"),
      s.aslr ? std::to_string(*s.aslr) : "not readable");
  if (n.before && n.before->load_1min)
    line += fmt::format(" · load {:.2f} before", *n.before->load_1min);
  if (n.during)
    line += fmt::format(", other processes {:.2f} CPUs and steal {:.1f} % during",
                        n.during->other_cpus, 100 * n.during->steal_share);
  md += "> " + line + (n.busy ? " · **⚠ busy machine**: see Warnings" : "") + "\n\n";
}

namespace {

const model::budget_facts* budget_of(const model::document& r) {
  return r.budget && *r.budget ? &**r.budget : nullptr;
}

}  // namespace

void budget_section(std::string& md, const model::document& r) {
  const model::budget_facts* budget = budget_of(r);
  if (budget == nullptr) return;
  const model::budget_facts& b = *budget;
  const model::stop_rule_facts& rule = b.stop_rule;
  md += "## Budget: what the run's time bought\n\n";
  if (b.mode == "budget" && b.budget_seconds)
    md += fmt::format("Budget {} (`--budget`), spent {:.0f} s on {} in {}; stopped: {}.{}\n\n",
                      minutes_text(*b.budget_seconds), b.spent_seconds,
                      counted(b.processes, "cell process", "cell processes"),
                      counted(b.rounds.size(), "look"), b.stopped,
                      // the stop reason may already say that every comparison is decided
                      b.stopped.find(open_sentence(b)) == std::string::npos
                          ? " " + capitalised(open_sentence(b)) + "."
                          : std::string());
  else
    md += fmt::format(
        "The fixed plan (`--full` or sizes given): {}, judged once at "
        "the end. {}.\n\n",
        counted(b.processes, "cell process", "cell processes"), open_sentence(b));
  if (b.planned_after_first_round && *b.planned_after_first_round) {
    const model::planned_rest& planned = **b.planned_after_first_round;
    md += fmt::format(
        "After the first round ({:.0f} s, {:.0f} s of the budget left) the run fixed its rest, "
        "before any look: {} more {}, up to {} a cell, {}.\n\n",
        planned.first_round_seconds, planned.seconds_left, planned.rounds,
        plural(planned.rounds, "round"), counted(planned.max_processes, "process", "processes"),
        counted(planned.looks, "look"));
  }
  md += fmt::format(
      "Stop rule: {} ({} {}, each interval at {:.4g} %, so a false decision has at most {:.0f} "
      "% chance however often the run looked; {}). Decided: {}; open: {}; without a number: "
      "{}. Claims are judged on these intervals.\n\n",
      rule.name, rule.looks, plural(rule.looks, "look"), 100 * rule.confidence, 100 * rule.alpha,
      rule.simulation, b.decided, b.open, b.unmeasurable);
  if (!b.rounds.empty()) rounds_table(md, b);
  open_table(md, b);
  if (!b.spread || b.spread->empty()) return;
  md +=
      "Where the spread is (the figure each cell's comparison is judged on; CVs from the "
      "variance of log figures):\n\n";
  spread_table(md, *b.spread);
}

std::string budget_headline(const model::document& r) {
  const model::budget_facts* b = budget_of(r);
  if (b == nullptr || b->mode != "budget" || !b->budget_seconds) return {};
  return fmt::format("budget {}: {:.0f} s, {}, {} decided; {}\n", minutes_text(*b->budget_seconds),
                     b->spent_seconds, counted(b->processes, "cell process", "cell processes"),
                     counted(b->decided, "comparison"), open_sentence(*b));
}

}  // namespace alloclab::lab::markdown
