#include "frames/program/program_results.hpp"

#include <fmt/format.h>

#include "render/markdown_format.hpp"
#include "render/units.hpp"
#include "stats/ratio_text.hpp"

namespace alloclab::program {
namespace {

using json = nlohmann::json;
namespace md = lab::markdown;

constexpr const char* measures_note =
    "CPU time is user + sys from wait4's rusage: the program's own and that of every descendant "
    "it waited for (its whole process tree, when it reaps its children). Peak RSS is ru_maxrss: "
    "the largest single process of that tree, not their sum.";

json figures_json(const run_figures& f) {
  return {{"cpu_seconds", f.cpu_seconds()},
          {"user_seconds", f.user_seconds},
          {"sys_seconds", f.sys_seconds},
          {"wall_seconds", f.wall_seconds},
          {"peak_rss_bytes", f.peak_rss_bytes},
          {"minor_faults", f.minor_faults},
          {"major_faults", f.major_faults},
          {"voluntary_switches", f.voluntary_switches},
          {"involuntary_switches", f.involuntary_switches}};
}

// How the rounds ended and how the intervals were made.
json stopping_json(const stopping_plan& plan, const stopping_outcome& outcome,
                   const std::optional<lab::stop_rule>& final_rule) {
  json j = {{"mode", plan.adaptive ? "adaptive" : "fixed"},
            {"rounds", outcome.rounds},
            {"stopped_because", outcome.stopped_because},
            {"interval", plan.adaptive ? "stop rule: " + std::string(lab::stop_rule_name) +
                                             "; each run one process; ratio of geometric means"
                                       : std::string("95 % bootstrap of the ratio of medians")}};
  if (!plan.adaptive) return j;
  j.update({{"budget_seconds", plan.budget_seconds},
            {"min_rounds", plan.min_rounds},
            {"max_rounds", plan.max_rounds},
            {"look_rounds", plan.look_rounds},
            {"looks_taken", outcome.looks_taken},
            {"confidence", final_rule ? final_rule->confidence() : 0.95},
            {"comparisons", outcome.compared},
            {"decided", outcome.decided},
            {"open", outcome.open}});
  return j;
}

// Medians over a combination's runs; its CPU is the median of each run's user + sys.
json median_json(const combination_figures& c) {
  json m = figures_json(c.median);
  m["cpu_seconds"] = c.cpu_seconds;
  return m;
}

json ratio_json(const std::optional<ratio_figure>& r, const char* verdict) {
  if (!r) return nullptr;
  return {{"ratio", r->value},
          {"interval",
           r->range.valid() ? json{{"low", r->range.low}, {"high", r->range.high}} : json(nullptr)},
          {"p_value", r->p_value},
          {"enough_runs", r->has_power},
          {"verdict", verdict}};
}

std::string hex(std::uint64_t h) {
  return fmt::format("{:016x}", h);
}

const knob_setting* setting_of(const variant& v, const std::string& knob) {
  for (const knob_setting& s : v.settings)
    if (s.knob == knob) return &s;
  return nullptr;
}

// knob -> {set, value, how, applied}: what the malloc reported it uses for each of its knobs.
json readings_json(const std::vector<heap::knob_reading>& readings, const variant& v) {
  json out = json::object();
  for (const heap::knob_reading& r : readings) {
    const knob_setting* s = setting_of(v, r.knob);
    out[r.knob] = {
        {"set", s ? json(s->value) : json(nullptr)},
        {"value", r.value ? json(*r.value) : json(nullptr)},
        {"how", r.how},
        {"applied", s && r.value ? json(same_knob_value(v.malloc, r.knob, s->value, *r.value))
                                 : json(nullptr)}};
  }
  return out;
}

// The variant's knobs over its runs: "not applied" when a run read one back different,
// "unverifiable" when the malloc cannot report one (glibc), "applied" when every run read each
// back as set; "no knobs set" for defaults, "not read" when no run reached the probe.
json knob_check_json(const variant& v, std::size_t index, const std::vector<run_row>& rows) {
  json first = nullptr;
  bool any_not_applied = false, any_unreadable = false;
  for (const run_row& row : rows) {
    if (row.combination != index || row.record.knobs.empty()) continue;
    const json readings = readings_json(row.record.knobs, v);
    if (first.is_null()) first = readings;
    for (const knob_setting& s : v.settings) {
      const json* r = readings.contains(s.knob) ? &readings.at(s.knob) : nullptr;
      if (r == nullptr || r->at("value").is_null())
        any_unreadable = true;
      else if (!r->at("applied").get<bool>())
        any_not_applied = true;
    }
  }
  const char* status = first.is_null()      ? "not read"
                       : v.settings.empty() ? "no knobs set"
                       : any_not_applied    ? "not applied"
                       : any_unreadable     ? "unverifiable"
                                            : "applied";
  return {{"status", status}, {"read_back", first}};
}

json combination_json(const variant& v, const combination_figures& c, json knob_check) {
  json knobs = json::object();
  for (const knob_setting& s : v.settings) knobs[s.knob] = s.value;
  json env = json::object();
  for (const auto& [name, value] : knob_environment(v)) env[name] = value;
  json hashes = json::array();
  for (std::uint64_t h : c.stdout_hashes) hashes.push_back(hex(h));
  return {{"name", c.label},
          {"malloc", c.malloc},
          {"knobs", knobs},
          {"knob_environment", env},
          {"knob_check", std::move(knob_check)},
          {"runs_ok", c.runs_ok},
          {"runs_failed", c.runs_failed},
          {"failures", c.failures},
          {"median", median_json(c)},
          {"cpu_vs_baseline", ratio_json(c.cpu, c.cpu ? cpu_verdict(c.cpu->verdict) : "")},
          {"peak_rss_vs_baseline",
           ratio_json(c.peak_rss, c.peak_rss ? memory_verdict(c.peak_rss->verdict) : "")},
          {"pareto_front", c.on_pareto_front},
          {"stdout_hashes", hashes}};
}

json run_json(const run_row& row, const std::vector<variant>& combinations) {
  json r = figures_json(row.record.figures);
  r["round"] = row.round;
  r["position"] = row.position;
  r["combination"] = combinations[row.combination].label();
  r["ok"] = row.record.ok;
  r["malloc_live"] = row.record.live;
  r["reason"] = row.record.ok ? json(nullptr) : json(row.record.reason);
  r["exit_code"] = row.record.exit_code;
  r["stdout_hash"] = hex(row.record.stdout_hash);
  r["stdout_bytes"] = row.record.stdout_bytes;
  r["knobs_read_back"] = readings_json(row.record.knobs, combinations[row.combination]);
  return r;
}

std::string quoted_command(const json& argv) {
  std::string text;
  for (const json& a : argv) {
    const std::string s = a.get<std::string>();
    const bool plain = !s.empty() && s.find_first_of(" \t'\"\\$`;&|<>()*?") == std::string::npos;
    text += (text.empty() ? "" : " ") + (plain ? s : "'" + s + "'");
  }
  return text;
}

std::string ratio_cell(const json& vs, const char* sign) {
  if (vs.is_null()) return "baseline";
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
std::string stopping_text(const json& program) {
  if (!program.contains("stopping"))
    return "Ratios are medians ÷ the baseline's, 95 % bootstrap interval.";
  const json& s = program["stopping"];
  if (s["mode"] == "fixed")
    return "Ratios are medians over the runs ÷ the baseline's, 95 % bootstrap interval.";
  std::string open;
  for (const json& label : s["open"]) open += (open.empty() ? "" : ", ") + label.get<std::string>();
  return fmt::format(
      "Rounds stopped adaptively (budget {:g} s, {} to {} rounds, looks after rounds {}): "
      "stopped after {} rounds, {}, {} of {} comparisons decided{}. Ratios are of geometric means "
      "with the stop rule's interval at its last look ({:.2f} %: the 5 % error is spent over the "
      "looks, so an interval holds whenever the rounds stopped; docs/budget.md).",
      s["budget_seconds"].get<double>(), s["min_rounds"].get<std::size_t>(),
      s["max_rounds"].get<std::size_t>(),
      fmt::join(s["look_rounds"].get<std::vector<std::size_t>>(), ", "),
      s["rounds"].get<std::size_t>(), s["stopped_because"].get<std::string>(),
      s["decided"].get<std::size_t>(), s["comparisons"].get<std::size_t>(),
      open.empty() ? "" : " (open: " + open + ")", 100 * s["confidence"].get<double>());
}

std::string seconds(double s) {
  return s < 10 ? fmt::format("{:.3f} s", s) : fmt::format("{:.1f} s", s);
}

std::string main_table(const json& program) {
  std::string out = md::table_head(
      {md::text_column("combination"), md::figure_column("runs"), md::figure_column("CPU"),
       md::text_column("CPU vs " + program["baseline"].get<std::string>()),
       md::text_column("verdict"), md::figure_column("peak RSS"),
       md::text_column("peak RSS vs " + program["baseline"].get<std::string>()),
       md::text_column("verdict"), md::figure_column("wall"), md::figure_column("minor faults"),
       md::figure_column("major faults"), md::figure_column("vol. / invol. switches"),
       md::text_column("Pareto")});
  for (const json& c : program["combinations"]) {
    const json& m = c["median"];
    const bool measured = c["runs_ok"].get<std::size_t>() > 0;
    out += fmt::format("| {} | {} of {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       c["name"].get<std::string>(), c["runs_ok"].get<std::size_t>(),
                       c["runs_ok"].get<std::size_t>() + c["runs_failed"].get<std::size_t>(),
                       measured ? seconds(m["cpu_seconds"].get<double>()) : "-",
                       measured ? ratio_cell(c["cpu_vs_baseline"], "×") : "-",
                       verdict_of(c["cpu_vs_baseline"]),
                       measured ? lab::format_bytes(m["peak_rss_bytes"].get<double>()) : "-",
                       measured ? ratio_cell(c["peak_rss_vs_baseline"], "×") : "-",
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

json program_json(const try_plan& plan, const std::vector<run_row>& rows,
                  const program_figures& figures, bool output_checked,
                  const stopping_plan& stopping, const stopping_outcome& outcome) {
  json combinations = json::array();
  for (std::size_t i = 0; i < plan.combinations.size(); ++i)
    combinations.push_back(combination_json(plan.combinations[i], figures.combinations[i],
                                            knob_check_json(plan.combinations[i], i, rows)));
  json runs = json::array();
  for (const run_row& row : rows) runs.push_back(run_json(row, plan.combinations));
  const run_setup& s = plan.setup;
  return {
      {"command", s.argv},
      {"working_directory",
       s.working_directory.empty() ? json(nullptr) : json(s.working_directory)},
      {"stdin", s.stdin_path.empty() ? json(nullptr) : json(s.stdin_path)},
      {"timeout_seconds", static_cast<double>(s.timeout.count()) / 1000},
      {"rounds", outcome.rounds},
      {"stopping",
       stopping_json(stopping, outcome,
                     outcome.looks_taken > 0 ? std::optional(stopping.rule_at(outcome.looks_taken))
                                             : std::nullopt)},
      {"seed", plan.seed},
      {"order", "every combination once per round, each round in a fresh random order"},
      {"baseline", figures.combinations.empty()
                       ? json(nullptr)
                       : json(figures.combinations[figures.baseline].label)},
      {"noise_floor_percent", figures.noise_floor * 100},
      {"measures", measures_note},
      {"liveness",
       "each run preloads liballoclab_program_probe.so with the malloc; its constructor proves "
       "in every process that loads it that malloc and free are the malloc's (dlsym/dladdr) and "
       "its proof symbols resolve; a run without that proof is a failed run. The probe also reads "
       "back each of the malloc's knobs from the malloc itself (jemalloc mallctl, mimalloc "
       "mi_option_get, tcmalloc GetMemoryReleaseRate): a knob read back different from its "
       "setting fails the run. glibc offers no read-back of its tunables: mmap_threshold is "
       "observed (mallinfo2: a request at the threshold beyond the heap's free bytes is "
       "mmapped, one below it is not), the others are reported as set via GLIBC_TUNABLES, "
       "unverifiable"},
      {"output",
       {{"mode", output_checked ? "check" : "discard"},
        {"consistent", figures.output.consistent},
        {"finding",
         figures.output.finding.empty() ? json(nullptr) : json(figures.output.finding)}}},
      {"combinations", std::move(combinations)},
      {"runs", std::move(runs)}};
}

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
    auto with_verdict = [](const json& vs) {
      return vs.is_null() ? std::string("baseline")
                          : ratio_cell(vs, "x") + " " + vs["verdict"].get<std::string>();
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
  const json& output = program["output"];
  if (output["mode"] == "check" && !output["consistent"].get<bool>())
    out += "FINDING: " + output["finding"].get<std::string>() + "\n";
  if (const std::string failed = failures_list(program); !failed.empty())
    out += "failed runs:\n" + failed;
  return out;
}

}  // namespace alloclab::program
