// report.md's shared vocabulary: how numbers, cells and baselines are written. Every
// markdown section file uses these, so one cell reads the same in every table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/document.hpp"
#include "model/values.hpp"
#include "render/units.hpp"

namespace alloclab::lab::markdown {

// A table's header row and alignment row: text columns align left, figure columns right.
struct column {
  std::string title;
  bool figure = false;
};
inline column text_column(std::string title) {
  return {std::move(title), false};
}
inline column figure_column(std::string title) {
  return {std::move(title), true};
}
// "| a | b |\n|---|---:|\n"
std::string table_head(const std::vector<column>& columns);

std::string format_rate(double per_second);
std::string format_count(double value);
std::string interval_text(const std::optional<model::interval>& range);
// "1.07× [1.05–1.10]" with the digits the interval supports (stats/ratio_text.hpp).
std::string ratio_text(double value, const std::optional<model::interval>& range);
// A cell against its baseline in the lab's one vocabulary (stats/decision.hpp verdict_words):
// the U test over repetition medians and speedup_p50's interval, judged against the default
// noise floor. verdict_legend explains it; the console's tables take the one-word form.
std::string speedup_verdict(const model::comparison& vs);
std::string speedup_verdict_word(const model::comparison& vs);
std::string verdict_legend();
// "1.07× [1.05–1.10] decided faster", or "" without a speedup.
std::string speedup_text(const std::optional<model::comparison>& vs_std);

// A cell against its workload's baseline as every report table shows it: the interval its
// verdict came from. Where a budgeted run judged the comparison paired (lockstep rings:
// `budget.comparisons[]` of kind vs_std with `paired_runs` > 0), the stop rule's paired ratio,
// its interval at the run's last look and the stop rule's verdict (decided faster/slower, the
// same within its margin, open); otherwise (`--full`, `--unpaired`, files from before pairing,
// untracked cells) speedup_text's bootstrap interval and U-test verdict.
struct shown_ratio {
  std::string text;  // "1.07× [1.05–1.10] decided faster" ("" without a ratio)
  std::string word;  // the verdict in one word: faster, slower, same, open
  double value = 0;
  bool paired = false;
};
shown_ratio vs_baseline_shown(const model::document& r, const model::workload& w,
                              const model::cell& c);
// The stop rule's paired comparison of `c` against `w`'s baseline, or null.
const model::budget_comparison* paired_vs_baseline(const model::document& r,
                                                   const model::workload& w,
                                                   const model::cell_head& c);
// The stop rule's verdict on a comparison in full ("decided faster", "the same within ±2 %",
// "open (inconclusive)") and in one word, from its recorded verdict (or its interval in files
// that have none).
std::string stop_rule_verdict_words(const model::budget_comparison& c);
std::string stop_rule_verdict_word(const model::budget_comparison& c);
// Which interval the lab cells of `r` show: how many of its vs-baseline ratios are paired, and
// how many are not (cells without a ratio are not counted).
struct shown_intervals {
  std::size_t paired = 0, unpaired = 0;
};
shown_intervals vs_baseline_intervals(const model::document& r);
// One legend line saying which interval the tables show ("" when none is paired: the bootstrap
// legend stands), and the mark of a ratio that is not paired when some are.
std::string paired_interval_legend(const model::document& r, const shown_intervals& shown);
inline constexpr const char* unpaired_mark = " †";
// vs_baseline_shown's text, marked when it is not paired and others are ("" without a ratio).
std::string vs_baseline_text(const model::document& r, const model::workload& w,
                             const model::cell& c, const shown_intervals& shown);

std::string baseline_name(const model::workload& w);
// The run's git revision, or "unknown".
std::string revision_text(const model::document& r);
bool is_heap(const model::workload& w);
bool is_lab(const model::workload& w);

// Cells are named by strategy alone while every cell runs on glibc, else "strategy @ malloc".
// Cells of the placement twin (glibc without the copy cliff) are shown in the placement
// section, not beside the cells the user asked for.
bool several_mallocs(const model::document& r);
std::string cell_label(const model::cell_head& cell, bool with_malloc);
bool is_baseline(const model::workload& w, const model::cell& cell);
// The cell of `w` whose cell_label is `label`, or null (a headline column the workload lacks).
const model::cell* cell_labelled(const model::workload& w, const std::string& label,
                                 bool with_malloc);
std::string baseline_p50_text(const model::workload& w);
std::string format_number_or_dash(const std::optional<double>& value, const char* pattern);

// What a cell without a number shows, from its status ("" for an ok cell: cell_state).
std::string status_text(const std::string& status);
std::string cell_state(const model::cell_head& cell);
bool has_baseline_timing(const model::workload& w);
std::string ms_or_dash(const std::optional<double>& value);
// "1.07× [1.05–1.10]" of an estimate (a `value` and an optional `interval`), or "-".
template <class Estimate>
std::string estimate_or_dash(const std::optional<Estimate>& e) {
  return e ? ratio_text(e->value, e->interval) : std::string("-");
}
std::string percent_or_dash(const std::optional<double>& share);
std::string spread_text(const std::optional<model::spread>& spread);

// One list item for a cell that failed or was refused: "- **what** (status): reason; label:
// exit", then the last 600 characters of its process's stderr as a code block.
std::string failed_cell_item(const std::string& what, const model::cell_head& cell,
                             const char* process);

// A replay cell: "glibc", or "resource (resource, under glibc)".
std::string replay_cell_label(const model::cell_head& cell);

}  // namespace alloclab::lab::markdown
