#include "markdown_format.hpp"

#include <optional>

#include <fmt/format.h>

#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::lab::markdown {

std::string table_head(const std::vector<column>& columns) {
  std::string titles = "|", rule = "|";
  for (const column& c : columns) {
    titles += " " + c.title + " |";
    rule += c.figure ? "---:|" : "---|";
  }
  return titles + "\n" + rule + "\n";
}

std::string format_rate(double per_second) {
  if (per_second >= 1e6) return fmt::format("{:.2f} M/s", per_second / 1e6);
  if (per_second >= 1e3) return fmt::format("{:.1f} k/s", per_second / 1e3);
  return fmt::format("{:.0f} /s", per_second);
}

std::string format_count(double value) {
  if (value == 0) return "0";
  if (value < 10) return fmt::format("{:.2g}", value);
  return fmt::format("{:.0f}", value);
}

std::string interval_text(const std::optional<model::interval>& range) {
  return range ? fmt::format(" [{:.2f}–{:.2f}]", range->low, range->high) : std::string();
}

std::string ratio_text(double value, const std::optional<model::interval>& range) {
  if (!range) return ratio_with_interval(value, std::nullopt, std::nullopt);
  return ratio_with_interval(value, range->low, range->high);
}

namespace {

constexpr double report_noise_floor = default_noise_floor_percent / 100;

// results.json files the U test's power only in its mark (`?`: too few repetitions).
difference speedup_difference(const model::comparison& vs, interval& range) {
  const auto& r = vs.intervals.speedup_p50;
  range = r ? interval{r->low, r->high} : interval{};
  return judge_difference(vs.p_value, vs.mark != "?", range, report_noise_floor);
}

}  // namespace

std::string speedup_verdict(const model::comparison& vs) {
  interval range;
  const difference d = speedup_difference(vs, range);
  return verdict_words(d, range, report_noise_floor, "faster", "slower");
}

std::string speedup_verdict_word(const model::comparison& vs) {
  interval range;
  const difference d = speedup_difference(vs, range);
  return verdict_word(d, range, report_noise_floor, "faster", "slower");
}

std::string verdict_legend() {
  return fmt::format(
      "*decided faster/slower* when the Mann-Whitney U test over the per-repetition medians "
      "gives p < {} and the interval lies wholly beyond ±{:g} %; *the same within ±{:g} %* when "
      "it lies wholly inside; otherwise *open (inconclusive)*, or *open (too few runs)* when "
      "the repetitions cannot reach p < {} (the verdicts of `try`, `compare` and `advise`)",
      significance_alpha, default_noise_floor_percent, default_noise_floor_percent,
      significance_alpha);
}

std::string speedup_text(const std::optional<model::comparison>& vs_std) {
  if (!vs_std || !vs_std->speedup_p50) return "";
  return ratio_text(*vs_std->speedup_p50, vs_std->intervals.speedup_p50) + " " +
         speedup_verdict(*vs_std);
}

namespace {

const model::budget_facts* budget_facts_of(const model::document& r) {
  return r.budget && *r.budget ? &**r.budget : nullptr;
}

ratio_verdict stop_rule_verdict(const model::budget_comparison& c) {
  const std::string v = c.verdict.value_or("");
  if (v == "candidate faster") return ratio_verdict::favours_candidate;
  if (v == "candidate slower") return ratio_verdict::favours_base;
  if (v == "the same within the margin") return ratio_verdict::same_within;
  if (v == "open") return ratio_verdict::open;
  return judge_ratio_interval(c.low.value_or(0), c.high.value_or(0), c.margin.value_or(0));
}

}  // namespace

const model::budget_comparison* paired_vs_baseline(const model::document& r,
                                                   const model::workload& w,
                                                   const model::cell_head& c) {
  const model::budget_facts* b = budget_facts_of(r);
  if (b == nullptr || c.placement_twin) return nullptr;
  for (const model::budget_comparison& x : b->comparisons)
    if (x.kind == "vs_std" && x.paired_runs.value_or(0) > 0 && x.value && x.low && x.high &&
        x.candidate.workload == w.name && x.candidate.strategy == c.strategy &&
        x.candidate.malloc == c.malloc && x.base.workload == w.name &&
        x.base.strategy == w.baseline.strategy && x.base.malloc == w.baseline.malloc)
      return &x;
  return nullptr;
}

std::string stop_rule_verdict_words(const model::budget_comparison& c) {
  switch (stop_rule_verdict(c)) {
    case ratio_verdict::favours_candidate:
      return "decided faster";
    case ratio_verdict::favours_base:
      return "decided slower";
    case ratio_verdict::same_within:
      return fmt::format("the same within ±{:g} %", 100 * c.margin.value_or(0));
    case ratio_verdict::open:
      break;
  }
  return "open (inconclusive)";
}

std::string stop_rule_verdict_word(const model::budget_comparison& c) {
  switch (stop_rule_verdict(c)) {
    case ratio_verdict::favours_candidate:
      return "faster";
    case ratio_verdict::favours_base:
      return "slower";
    case ratio_verdict::same_within:
      return "same";
    case ratio_verdict::open:
      break;
  }
  return "open";
}

shown_ratio vs_baseline_shown(const model::document& r, const model::workload& w,
                              const model::cell& c) {
  shown_ratio out;
  if (const model::budget_comparison* p = paired_vs_baseline(r, w, c.head)) {
    out.value = *p->value;
    out.text = ratio_text(*p->value, model::interval{*p->low, *p->high}) + " " +
               stop_rule_verdict_words(*p);
    out.word = stop_rule_verdict_word(*p);
    out.paired = true;
    return out;
  }
  if (!c.vs_std || !c.vs_std->speedup_p50) return out;
  out.value = *c.vs_std->speedup_p50;
  out.text = speedup_text(c.vs_std);
  out.word = speedup_verdict_word(*c.vs_std);
  return out;
}

shown_intervals vs_baseline_intervals(const model::document& r) {
  shown_intervals shown;
  for (const model::workload& w : r.workloads) {
    if (!is_lab(w)) continue;
    for (const model::cell& c : w.cells) {
      if (c.head.placement_twin || is_baseline(w, c) || c.head.status != "ok") continue;
      const shown_ratio s = vs_baseline_shown(r, w, c);
      if (s.text.empty()) continue;
      ++(s.paired ? shown.paired : shown.unpaired);
    }
  }
  return shown;
}

std::string paired_interval_legend(const model::document& r, const shown_intervals& shown) {
  const model::budget_facts* b = budget_facts_of(r);
  if (shown.paired == 0 || b == nullptr) return "";
  std::string legend = fmt::format(
      "Intervals: each ratio is the stop rule's paired estimate, with the interval its verdict "
      "came from: the two cells ran in lockstep rings, a ring run reads the median of its "
      "per-slice ratios (baseline p50 ÷ cell p50 in the same cycle), the ratio is their "
      "geometric mean over the ring runs both took part in, and the brackets hold the stop "
      "rule's interval at the run's last look ({:.4g} %, see Budget): *decided faster/slower* "
      "when it lies wholly beyond 1, *the same within ±{:g} %* when it lies wholly inside that "
      "margin, otherwise *open (inconclusive)*.",
      100 * b->stop_rule.confidence, 100 * default_equivalence_margin);
  if (shown.unpaired > 0)
    legend += fmt::format(
        " Ratios marked{} were not judged paired: between the two cells' median repetition "
        "p50s, with the 95 % bootstrap interval over repetitions; their verdicts: {}.",
        unpaired_mark, verdict_legend());
  return legend;
}

std::string vs_baseline_text(const model::document& r, const model::workload& w,
                             const model::cell& c, const shown_intervals& shown) {
  const shown_ratio s = vs_baseline_shown(r, w, c);
  if (s.text.empty() || s.paired || shown.paired == 0) return s.text;
  return s.text + unpaired_mark;
}

std::string baseline_name(const model::workload& w) {
  return fmt::format("{} @ {}", w.baseline.strategy, w.baseline.malloc);
}

std::string revision_text(const model::document& r) {
  return r.environment.git_revision.value_or("unknown");
}

bool is_heap(const model::workload& w) {
  return w.kind == "heap";
}

bool is_lab(const model::workload& w) {
  return w.kind == "lab";
}

bool several_mallocs(const model::document& r) {
  const auto& m = r.config.mallocs;
  return m.size() > 1 || (m.size() == 1 && m.front() != "glibc");
}

std::string cell_label(const model::cell_head& cell, bool with_malloc) {
  return with_malloc ? cell.strategy + " @ " + cell.malloc : cell.strategy;
}

const model::cell* cell_labelled(const model::workload& w, const std::string& label,
                                 bool with_malloc) {
  for (const auto& c : w.cells)
    if (!c.head.placement_twin && cell_label(c.head, with_malloc) == label) return &c;
  return nullptr;
}

bool is_baseline(const model::workload& w, const model::cell& cell) {
  return cell.head.strategy == w.baseline.strategy && cell.head.malloc == w.baseline.malloc;
}

std::string baseline_p50_text(const model::workload& w) {
  for (const auto& c : w.cells)
    if (is_baseline(w, c) && c.timing) return format_ns(c.timing->p50_ns);
  return "-";
}

bool has_baseline_timing(const model::workload& w) {
  for (const auto& c : w.cells)
    if (is_baseline(w, c) && c.timing) return true;
  return false;
}

std::string cell_state(const model::cell_head& cell) {
  return cell.status == "ok" ? "" : status_text(cell.status);
}

std::string format_number_or_dash(const std::optional<double>& value, const char* pattern) {
  return value ? fmt::format(fmt::runtime(pattern), *value) : "-";
}

std::string status_text(const std::string& status) {
  if (status == "not_applicable") return "n/a";
  if (status == "overflowed") return "OVERFLOW";
  if (status == "not_installed") return "not installed";
  if (status == "failed") return "FAILED";
  if (status == "refused") return "REFUSED";
  return status;
}

std::string ms_or_dash(const std::optional<double>& value) {
  return format_number_or_dash(value, "{:.2f}");
}

std::string percent_or_dash(const std::optional<double>& share) {
  return share ? fmt::format("{:.1f} %", 100 * *share) : "-";
}

std::string spread_text(const std::optional<model::spread>& spread) {
  return spread ? format_bytes(static_cast<double>(spread->median)) : "-";
}

std::string failed_cell_item(const std::string& what, const model::cell_head& cell,
                             const char* process) {
  std::string tail = cell.worker ? cell.worker->stderr_tail : "";
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
  std::string item =
      fmt::format("- **{}** ({}): {}; {}: {}\n", what, cell.status, cell.reason.value_or(""),
                  process, cell.worker ? cell.worker->exit : std::string("-"));
  if (!tail.empty()) item += fmt::format("\n  ```\n  {}\n  ```\n", tail);
  return item;
}

std::string replay_cell_label(const model::cell_head& cell) {
  return cell.strategy == "malloc" ? cell.malloc
                                   : cell.strategy + " (resource, under " + cell.malloc + ")";
}

}  // namespace alloclab::lab::markdown
