#include "frames/program/program_results.hpp"

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frames/program/program_model.hpp"

#include "render/markdown_format.hpp"
#include "render/shell_words.hpp"
#include "render/units.hpp"
#include "render/columns.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"
#include "text/plural.hpp"

namespace alloclab::program {
namespace {

namespace md = lab::markdown;
using lab::combination_result;
using lab::program_ratio;
using lab::program_results_section;
using lab::program_stopping;

// A ratio with its interval; "baseline" for the baseline, "no baseline runs" for another
// combination without a ratio (its runs succeeded, the baseline's did not).
// Shown as the lab's one convention, baseline ÷ combination (> 1: the combination is faster or
// smaller), though results.json files the cost ratio combination ÷ baseline.
std::string ratio_cell(const std::optional<program_ratio>& vs, const char* sign, bool is_baseline) {
  if (!vs) return is_baseline ? "baseline" : "no baseline runs";
  if (!(vs->ratio > 0)) return "no ratio";
  return vs->interval && vs->interval->low > 0
             ? lab::ratio_with_interval(1 / vs->ratio, 1 / vs->interval->high,
                                        1 / vs->interval->low, sign)
             : lab::ratio_with_interval(1 / vs->ratio, std::nullopt, std::nullopt, sign);
}

// The filed verdict in the lab's one vocabulary (stats/decision.hpp verdict_words).
std::string verdict_of(const std::optional<program_ratio>& vs, double noise_floor_percent) {
  if (!vs) return std::string();
  const std::string& v = vs->verdict;
  const bool cost_lower = v == "faster" || v == "smaller",
             cost_higher = v == "slower" || v == "larger";
  const lab::difference d = cost_lower            ? lab::difference::lower
                            : cost_higher         ? lab::difference::higher
                            : v == "too few runs" ? lab::difference::too_few
                                                  : lab::difference::inside_noise;
  const bool memory = v == "smaller" || v == "larger";
  const lab::interval range =
      vs->interval ? lab::interval{vs->interval->low, vs->interval->high} : lab::interval{};
  return lab::verdict_words(d, range, noise_floor_percent / 100, memory ? "larger" : "slower",
                            memory ? "smaller" : "faster");
}

std::string joined(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& label : labels) text += (text.empty() ? "" : ", ") + label;
  return text;
}

bool is_baseline(const program_results_section& program, const combination_result& c) {
  return program.baseline && c.name == *program.baseline;
}

// How the rounds stopped, in one sentence (console and report).
std::string stopping_summary(const program_stopping& s) {
  const std::string open = joined(s.open.value_or(std::vector<std::string>{}));
  const std::string failing = joined(s.failing.value_or(std::vector<std::string>{}));
  return fmt::format("stopped after {} ({}): {} of {} decided{}{}; intervals at {:.2f} %",
                     lab::counted(s.rounds, "round"), s.stopped_because, s.decided.value_or(0),
                     lab::counted(s.comparisons.value_or(0), "comparison"),
                     open.empty() ? "" : ", open: " + open,
                     failing.empty() ? "" : ", undecidable (most runs failed): " + failing,
                     100 * s.confidence.value_or(0));
}

// The rounds' stopping and the intervals it implies, in a sentence or two.
std::string stopping_text(const program_results_section& program) {
  if (!program.stopping || program.stopping->mode == "fixed")
    return "Ratios are the baseline's median ÷ the combination's (> 1: the combination is faster "
           "or smaller), 95 % bootstrap interval.";
  const program_stopping& s = *program.stopping;
  return fmt::format(
      "Rounds stopped adaptively (budget {:g} s, but at least {} rounds; at most {}; looks after "
      "rounds {}): {}. Ratios (the baseline ÷ the combination, > 1: the combination is faster or "
      "smaller) are of geometric means with the stop rule's interval at its last "
      "look (the 5 % error of each comparison is spent over the looks, so its interval holds "
      "whenever the rounds stopped; docs/budget.md); the CPU column shows medians. An interval "
      "that neither clears the noise floor nor lies inside it is \"open (inconclusive)\".",
      s.budget_seconds.value_or(0), s.min_rounds.value_or(0), s.max_rounds.value_or(0),
      fmt::join(s.look_rounds.value_or(std::vector<std::size_t>{}), ", "), stopping_summary(s));
}

std::string seconds(double s) {
  return s < 10 ? fmt::format("{:.3f} s", s) : fmt::format("{:.1f} s", s);
}

std::string main_table_row(const program_results_section& program, const combination_result& c) {
  const lab::program_run_figures& m = c.median;
  const bool measured = c.runs_ok > 0;
  const bool base = is_baseline(program, c);
  return fmt::format("| {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                     c.name, c.runs_ok, c.runs_ok + c.runs_failed,
                     measured ? seconds(m.cpu_seconds) : "-",
                     measured ? ratio_cell(c.cpu_vs_baseline, "×", base) : "-",
                     verdict_of(c.cpu_vs_baseline, program.noise_floor_percent),
                     measured ? lab::format_bytes(static_cast<double>(m.peak_rss_bytes)) : "-",
                     measured ? ratio_cell(c.peak_rss_vs_baseline, "×", base) : "-",
                     verdict_of(c.peak_rss_vs_baseline, program.noise_floor_percent),
                     measured ? seconds(m.wall_seconds) : "-",
                     md::format_count(static_cast<double>(m.minor_faults)),
                     md::format_count(static_cast<double>(m.major_faults)),
                     md::format_count(static_cast<double>(m.voluntary_switches)) + " / " +
                         md::format_count(static_cast<double>(m.involuntary_switches)),
                     c.pareto_front ? "✅ front" : "");
}

std::string main_table(const program_results_section& program) {
  const std::string baseline = program.baseline.value_or("");
  std::string out = md::table_head(
      {md::text_column("combination"), md::figure_column("runs"), md::figure_column("CPU (median)"),
       md::text_column(baseline + " ÷ it, CPU (> 1: faster)"), md::text_column("verdict"),
       md::figure_column("peak RSS"), md::text_column(baseline + " ÷ it, peak RSS (> 1: smaller)"),
       md::text_column("verdict"), md::figure_column("wall"), md::figure_column("minor faults"),
       md::figure_column("major faults"), md::figure_column("vol. / invol. switches"),
       md::text_column("Pareto")});
  for (const combination_result& c : program.combinations) out += main_table_row(program, c);
  return out;
}

std::string front_names(const program_results_section& program) {
  std::string names;
  for (const combination_result& c : program.combinations)
    if (c.pareto_front) names += (names.empty() ? "" : ", ") + c.name;
  return names.empty() ? "none (no combination has a successful run)" : names;
}

std::string knob_values(const std::map<std::string, lab::knob_reading_figures>& read_back,
                        bool set_only) {
  std::string text;
  for (const auto& [knob, r] : read_back) {
    if (set_only ? !r.set : !r.value) continue;
    text += (text.empty() ? "" : "; ") + knob + " " +
            (r.value ? "= " + *r.value : std::string("not readable")) +
            (r.set ? " (set " + *r.set + ")" : "") + ": " + r.how;
  }
  return text;
}

// What each combination's malloc reported for its knobs, as read back inside the program.
std::string knob_check_list(const program_results_section& program) {
  std::string out;
  for (const combination_result& c : program.combinations) {
    const lab::knob_check_figures& check = c.knob_check;
    if (!check.read_back || check.read_back->empty()) continue;
    const bool defaults = check.status == "no knobs set";
    const std::string values = knob_values(*check.read_back, !defaults);
    if (values.empty()) continue;
    out += "- **" + c.name + "**: " +
           (defaults                    ? "defaults"
            : check.status == "applied" ? "✅ applied"
                                        : "⚠ " + check.status) +
           " — " + values + "\n";
  }
  return out;
}

std::string failures_list(const program_results_section& program) {
  std::string out;
  for (const combination_result& c : program.combinations)
    for (const std::string& reason : c.failures) out += "- **" + c.name + "**: " + reason + "\n";
  return out;
}

}  // namespace

std::string render_program_markdown(const program_results_section& program) {
  std::string out = "## Your program under each malloc\n\n";
  out += fmt::format(
      "`{}`, {} rounds (each runs every combination once, in a fresh random order; seed {}), "
      "timeout {:g} s per run{}{}. {} A verdict needs the Mann-Whitney U test (p < 0.05) and "
      "the interval beyond the {:g} % noise floor.\n\n",
      lab::shell_words(program.command), program.rounds, program.seed, program.timeout_seconds,
      program.stdin_path ? ", stdin from `" + *program.stdin_path + "`" : "",
      program.working_directory ? ", in `" + *program.working_directory + "`" : "",
      stopping_text(program), program.noise_floor_percent);
  out += main_table(program) + "\n";
  out +=
      "**CPU versus peak RSS — the Pareto front** (no other combination has both less CPU "
      "and less peak RSS, by median): " +
      front_names(program) +
      ". Pick a point on it; off the front, something is better on both.\n\n";
  const lab::output_figures& output = program.output;
  if (output.mode == "check")
    out += output.consistent
               ? "**Output**: identical in every successful run.\n\n"
               : "**Finding — output differs**: ⚠ " + output.finding.value_or("") + "\n\n";
  if (const std::string knobs = knob_check_list(program); !knobs.empty())
    out +=
        "**Knobs read back** from the malloc inside the program (a knob the malloc reports a "
        "different value for fails its runs):\n\n" +
        knobs + "\n";
  if (const std::string failed = failures_list(program); !failed.empty())
    out += "**Failed runs** (no numbers):\n\n" + failed + "\n";
  out += "How it was measured: " + program.measures + " Liveness: " + program.liveness + ".\n";
  return out;
}

std::string render_program_console(const program_results_section& program) {
  const std::string baseline = program.baseline.value_or("the baseline");
  std::size_t name_width = std::string("combination").size();
  for (const combination_result& c : program.combinations)
    name_width = std::max(name_width, lab::display_width(c.name));
  std::string out;
  // One table per measure, each within 80 columns: name, runs, median, ratio and verdict.
  const auto table = [&](const std::string& measure, const char* better, auto median,
                         auto ratio_of) {
    out += lab::padded("combination", name_width) + " runs  " + lab::padded(measure, 9, true) +
           " " + baseline + " ÷ it (> 1: " + better + ")\n";
    for (const combination_result& c : program.combinations) {
      const bool measured = c.runs_ok > 0;
      const std::optional<program_ratio>& vs = ratio_of(c);
      out +=
          lab::padded(c.name, name_width) + " " +
          lab::padded(fmt::format("{}/{}", c.runs_ok, c.runs_ok + c.runs_failed), 4, true) + "  " +
          lab::padded(measured ? median(c) : "-", 9, true) + " " +
          (measured ? ratio_cell(vs, "x", is_baseline(program, c)) +
                          (vs ? " " + verdict_of(vs, program.noise_floor_percent) : std::string())
                    : std::string("-")) +
          "\n";
    }
  };
  table(
      "CPU", "faster", [](const combination_result& c) { return seconds(c.median.cpu_seconds); },
      [](const combination_result& c) -> const std::optional<program_ratio>& {
        return c.cpu_vs_baseline;
      });
  table(
      "peak RSS", "smaller",
      [](const combination_result& c) {
        return lab::format_bytes(static_cast<double>(c.median.peak_rss_bytes));
      },
      [](const combination_result& c) -> const std::optional<program_ratio>& {
        return c.peak_rss_vs_baseline;
      });
  out +=
      "Pareto front (no other uses both less CPU and less memory): " + front_names(program) + "\n";
  if (program.stopping && program.stopping->mode == "adaptive")
    out +=
        "rounds: " + lab::wrapped(stopping_summary(*program.stopping), 80 - 8, "\n        ") + "\n";
  if (program.output.mode == "check" && !program.output.consistent)
    out += "FINDING: " + program.output.finding.value_or("") + "\n";
  if (const std::string failed = failures_list(program); !failed.empty())
    out += "failed runs:\n" + failed;
  return out;
}

}  // namespace alloclab::program
