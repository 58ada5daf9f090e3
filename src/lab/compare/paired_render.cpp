// `alloclab compare --paired`'s output: text for the terminal, Markdown for -o.
#include <algorithm>

#include <fmt/format.h>

#include "compare/paired_compare.hpp"
#include "render/units.hpp"

namespace alloclab::lab {
namespace {

std::string paired_build_text(const model::paired_build& b) {
  return fmt::format("{} (revision {}, worker protocol {}, lockstep protocol {})", b.binary,
                     b.git_revision.value_or("unknown"), b.worker_protocol, b.lockstep_protocol);
}

std::string paired_cell_text(const model::paired_cell& c) {
  const model::budget_cell_name& n = c.comparison.base;
  return fmt::format("{} / {} @ {}", n.workload, n.strategy, n.malloc);
}

std::string paired_p50_text(const model::paired_side_figure& side) {
  return side.p50_ns ? format_ns(*side.p50_ns) : side.status;
}

// candidate ÷ baseline − 1 with its interval, from the comparison's baseline ÷ candidate.
std::string paired_change_text(const model::paired_cell& c) {
  if (!c.change_percent) return "-";
  std::string text = fmt::format("{:+.2f} %", *c.change_percent);
  if (c.comparison.low && c.comparison.high)
    text += fmt::format(" [{:+.2f}, {:+.2f}]", (1 / *c.comparison.high - 1) * 100,
                        (1 / *c.comparison.low - 1) * 100);
  return text;
}

std::string paired_verdict_text(const model::paired_cell& c) {
  std::string text = c.comparison.verdict.value_or(c.comparison.state);
  if (c.regression) text += " (REGRESSION)";
  if (c.comparison.state == "unmeasurable")
    text += ": " + c.baseline.reason.value_or(c.candidate.reason.value_or(""));
  return text;
}

std::string paired_rule_text(const model::paired_builds& p) {
  return fmt::format(
      "verdict: a cell is decided when the stop rule's interval of its paired change lies wholly "
      "below 0 (candidate faster), above 0 (candidate slower), or inside ±{:g} % (the same "
      "within the margin); else it is open. {} look(s) at most, alpha {} spent over them.",
      p.margin * 100, p.stop_rule.looks, p.stop_rule.alpha);
}

std::string paired_gate_text(const model::paired_builds& p) {
  const std::string stop = fmt::format("stopped: {} after {} look(s), {:.0f} s", p.stopped,
                                       p.rounds.size(), p.spent_seconds);
  if (!p.fail_above_percent) return stop + "; no --fail-on-regression: the exit status is 0";
  return stop +
         fmt::format("; regressions beyond {:g} %: {}", *p.fail_above_percent, p.regressions);
}

}  // namespace

std::string render_paired_text(const model::paired_builds& p) {
  std::string out =
      fmt::format("baseline:  {}\ncandidate: {}\npair: {}\n{}\n", paired_build_text(p.baseline),
                  paired_build_text(p.candidate), p.pair, paired_rule_text(p));
  std::size_t width = 4;
  for (const auto& c : p.cells) width = std::max(width, paired_cell_text(c).size());
  out += fmt::format("{:<{}}  {:>12}  {:>13}  {:>26}  {:>4}  {}\n", "cell", width, "baseline p50",
                     "candidate p50", "change [interval]", "runs", "verdict");
  for (const auto& c : p.cells)
    out += fmt::format("{:<{}}  {:>12}  {:>13}  {:>26}  {:>4}  {}\n", paired_cell_text(c), width,
                       paired_p50_text(c.baseline), paired_p50_text(c.candidate),
                       paired_change_text(c), c.comparison.paired_runs.value_or(0),
                       paired_verdict_text(c));
  return out + paired_gate_text(p) + "\n";
}

std::string render_paired_markdown(const model::paired_builds& p) {
  std::string md = "# alloclab compare --paired\n\n";
  md += fmt::format("- **baseline**: `{}`\n- **candidate**: `{}`\n\n",
                    paired_build_text(p.baseline), paired_build_text(p.candidate));
  md += fmt::format("**A pair** is {}.\n\n{}\n\n", p.pair, paired_rule_text(p));
  md +=
      "| cell | baseline p50 | candidate p50 | change [interval] | ring runs | verdict |\n"
      "|---|---:|---:|---:|---:|---|\n";
  for (const auto& c : p.cells)
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", paired_cell_text(c),
                      paired_p50_text(c.baseline), paired_p50_text(c.candidate),
                      paired_change_text(c), c.comparison.paired_runs.value_or(0),
                      paired_verdict_text(c));
  return md + "\n" + paired_gate_text(p) + "\n";
}

}  // namespace alloclab::lab
