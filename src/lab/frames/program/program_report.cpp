#include "frames/program/program_results.hpp"

#include <fmt/format.h>

#include "render/markdown_format.hpp"
#include "render/shell_words.hpp"
#include "render/units.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;
namespace md = lab::markdown;

std::string quoted_command(const json& argv) {
  return lab::shell_words(argv.get<std::vector<std::string>>());
}

// A ratio with its interval; "baseline" for the baseline, "no baseline runs" for another
// combination without a ratio (its runs succeeded, the baseline's did not).
std::string ratio_cell(const json& vs, const char* sign, bool is_baseline) {
  if (vs.is_null()) return is_baseline ? "baseline" : "no baseline runs";
  const json& range = vs["interval"];
  const std::string text =
      range.is_object()
          ? lab::ratio_with_interval(vs["ratio"].get<double>(), range["low"].get<double>(),
                                     range["high"].get<double>(), sign)
          : lab::ratio_with_interval(vs["ratio"].get<double>(), std::nullopt, std::nullopt, sign);
  return text;
}

std::string verdict_of(const json& vs) {
  return vs.is_null() ? "" : vs["verdict"].get<std::string>();
}

// The rounds' stopping and the intervals it implies, in a sentence or two.
std::string joined(const json& labels) {
  std::string text;
  for (const json& label : labels) text += (text.empty() ? "" : ", ") + label.get<std::string>();
  return text;
}

// How the rounds stopped, in one sentence (console and report).
std::string stopping_summary(const json& s) {
  const std::string open = joined(s["open"]);
  const std::string failing = s.contains("failing") ? joined(s["failing"]) : "";
  return fmt::format(
      "stopped after {} rounds ({}): {} of {} comparisons decided{}{}; intervals at {:.2f} %",
      s["rounds"].get<std::size_t>(), s["stopped_because"].get<std::string>(),
      s["decided"].get<std::size_t>(), s["comparisons"].get<std::size_t>(),
      open.empty() ? "" : ", open: " + open,
      failing.empty() ? "" : ", undecidable (most runs failed): " + failing,
      100 * s["confidence"].get<double>());
}

std::string stopping_text(const json& program) {
  if (!program.contains("stopping") || program["stopping"]["mode"] == "fixed")
    return "Ratios are medians over the runs ÷ the baseline's, 95 % bootstrap interval.";
  const json& s = program["stopping"];
  return fmt::format(
      "Rounds stopped adaptively (budget {:g} s, but at least {} rounds; at most {}; looks after "
      "rounds {}): {}. Ratios are of geometric means with the stop rule's interval at its last "
      "look (the 5 % error of each comparison is spent over the looks, so its interval holds "
      "whenever the rounds stopped; docs/budget.md); the CPU column shows medians. An interval "
      "that neither clears the noise floor nor lies inside it is \"inconclusive (open)\".",
      s["budget_seconds"].get<double>(), s["min_rounds"].get<std::size_t>(),
      s["max_rounds"].get<std::size_t>(),
      fmt::join(s["look_rounds"].get<std::vector<std::size_t>>(), ", "), stopping_summary(s));
}

std::string seconds(double s) {
  return s < 10 ? fmt::format("{:.3f} s", s) : fmt::format("{:.1f} s", s);
}

std::string main_table(const json& program) {
  std::string out = md::table_head(
      {md::text_column("combination"), md::figure_column("runs"), md::figure_column("CPU (median)"),
       md::text_column("CPU vs " + program["baseline"].get<std::string>()),
       md::text_column("verdict"), md::figure_column("peak RSS"),
       md::text_column("peak RSS vs " + program["baseline"].get<std::string>()),
       md::text_column("verdict"), md::figure_column("wall"), md::figure_column("minor faults"),
       md::figure_column("major faults"), md::figure_column("vol. / invol. switches"),
       md::text_column("Pareto")});
  for (const json& c : program["combinations"]) {
    const json& m = c["median"];
    const bool measured = c["runs_ok"].get<std::size_t>() > 0;
    out += fmt::format(
        "| {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        c["name"].get<std::string>(), c["runs_ok"].get<std::size_t>(),
        c["runs_ok"].get<std::size_t>() + c["runs_failed"].get<std::size_t>(),
        measured ? seconds(m["cpu_seconds"].get<double>()) : "-",
        measured ? ratio_cell(c["cpu_vs_baseline"], "×", c["name"] == program["baseline"]) : "-",
        verdict_of(c["cpu_vs_baseline"]),
        measured ? lab::format_bytes(m["peak_rss_bytes"].get<double>()) : "-",
        measured ? ratio_cell(c["peak_rss_vs_baseline"], "×", c["name"] == program["baseline"])
                 : "-",
        verdict_of(c["peak_rss_vs_baseline"]),
        measured ? seconds(m["wall_seconds"].get<double>()) : "-",
        md::format_count(m["minor_faults"].get<double>()),
        md::format_count(m["major_faults"].get<double>()),
        md::format_count(m["voluntary_switches"].get<double>()) + " / " +
            md::format_count(m["involuntary_switches"].get<double>()),
        c["pareto_front"].get<bool>() ? "✅ front" : "");
  }
  return out;
}

std::string front_names(const json& program) {
  std::string names;
  for (const json& c : program["combinations"])
    if (c["pareto_front"].get<bool>())
      names += (names.empty() ? "" : ", ") + c["name"].get<std::string>();
  return names.empty() ? "none (no combination has a successful run)" : names;
}

std::string knob_values(const json& read_back, bool set_only) {
  std::string text;
  for (const auto& [knob, r] : read_back.items()) {
    if (set_only ? r.at("set").is_null() : r.at("value").is_null()) continue;
    text += (text.empty() ? "" : "; ") + knob + " " +
            (r.at("value").is_null() ? std::string("not readable")
                                     : "= " + r.at("value").get<std::string>()) +
            (r.at("set").is_null() ? "" : " (set " + r.at("set").get<std::string>() + ")") + ": " +
            r.at("how").get<std::string>();
  }
  return text;
}

// What each combination's malloc reported for its knobs, as read back inside the program.
std::string knob_check_list(const json& program) {
  std::string out;
  for (const json& c : program["combinations"]) {
    const json& check = c["knob_check"];
    if (check["read_back"].is_null() || check["read_back"].empty()) continue;
    const std::string status = check["status"].get<std::string>();
    const bool defaults = status == "no knobs set";
    const std::string values = knob_values(check["read_back"], !defaults);
    if (values.empty()) continue;
    out += "- **" + c["name"].get<std::string>() + "**: " +
           (defaults              ? "defaults"
            : status == "applied" ? "✅ applied"
                                  : "⚠ " + status) +
           " — " + values + "\n";
  }
  return out;
}

std::string failures_list(const json& program) {
  std::string out;
  for (const json& c : program["combinations"])
    for (const json& reason : c["failures"])
      out += "- **" + c["name"].get<std::string>() + "**: " + reason.get<std::string>() + "\n";
  return out;
}

}  // namespace

std::string render_program_markdown(const json& program) {
  std::string out = "## Your program under each malloc\n\n";
  out += fmt::format(
      "`{}`, {} rounds (each runs every combination once, in a fresh random order; seed {}), "
      "timeout {:g} s per run{}{}. {} A verdict needs the Mann-Whitney U test (p < 0.05) and "
      "the interval beyond the {:g} % noise floor.\n\n",
      quoted_command(program["command"]), program["rounds"].get<std::size_t>(),
      program["seed"].get<std::uint64_t>(), program["timeout_seconds"].get<double>(),
      program["stdin"].is_null() ? ""
                                 : ", stdin from `" + program["stdin"].get<std::string>() + "`",
      program["working_directory"].is_null()
          ? ""
          : ", in `" + program["working_directory"].get<std::string>() + "`",
      stopping_text(program), program["noise_floor_percent"].get<double>());
  out += main_table(program) + "\n";
  out +=
      "**CPU versus peak RSS — the Pareto front** (no other combination has both less CPU "
      "and less peak RSS, by median): " +
      front_names(program) +
      ". Pick a point on it; off the front, something is better on both.\n\n";
  const json& output = program["output"];
  if (output["mode"] == "check")
    out += output["consistent"].get<bool>()
               ? "**Output**: identical in every successful run.\n\n"
               : "**Finding — output differs**: ⚠ " + output["finding"].get<std::string>() + "\n\n";
  if (const std::string knobs = knob_check_list(program); !knobs.empty())
    out +=
        "**Knobs read back** from the malloc inside the program (a knob the malloc reports a "
        "different value for fails its runs):\n\n" +
        knobs + "\n";
  if (const std::string failed = failures_list(program); !failed.empty())
    out += "**Failed runs** (no numbers):\n\n" + failed + "\n";
  out += "How it was measured: " + program["measures"].get<std::string>() +
         " Liveness: " + program["liveness"].get<std::string>() + ".\n";
  return out;
}

std::string render_program_console(const json& program) {
  std::string out = fmt::format("{:<34} {:>7} {:>10} {:<26} {:>11} {:<26}\n", "combination", "runs",
                                "CPU", "vs baseline", "peak RSS", "vs baseline");
  for (const json& c : program["combinations"]) {
    const bool measured = c["runs_ok"].get<std::size_t>() > 0;
    const json& m = c["median"];
    const bool is_baseline = c["name"] == program["baseline"];
    auto with_verdict = [is_baseline](const json& vs) {
      return vs.is_null() ? ratio_cell(vs, "x", is_baseline)
                          : ratio_cell(vs, "x", false) + " " + vs["verdict"].get<std::string>();
    };
    out += fmt::format(
        "{:<34} {:>7} {:>10} {:<26} {:>11} {:<26}{}\n", c["name"].get<std::string>(),
        fmt::format("{}/{}", c["runs_ok"].get<std::size_t>(),
                    c["runs_ok"].get<std::size_t>() + c["runs_failed"].get<std::size_t>()),
        measured ? seconds(m["cpu_seconds"].get<double>()) : "-",
        measured ? with_verdict(c["cpu_vs_baseline"]) : "-",
        measured ? lab::format_bytes(m["peak_rss_bytes"].get<double>()) : "-",
        measured ? with_verdict(c["peak_rss_vs_baseline"]) : "-",
        c["pareto_front"].get<bool>() ? "  [Pareto front]" : "");
  }
  if (program.contains("stopping") && program["stopping"]["mode"] == "adaptive")
    out += "rounds: " + stopping_summary(program["stopping"]) + "\n";
  const json& output = program["output"];
  if (output["mode"] == "check" && !output["consistent"].get<bool>())
    out += "FINDING: " + output["finding"].get<std::string>() + "\n";
  if (const std::string failed = failures_list(program); !failed.empty())
    out += "failed runs:\n" + failed;
  return out;
}

}  // namespace alloclab::program
