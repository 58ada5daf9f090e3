#include "frames/program/program_results.hpp"

#include <fmt/format.h>

namespace alloclab::program {
namespace {

using json = nlohmann::json;

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
json stopping_json(const stopping_plan& plan, const stopping_outcome& outcome) {
  json j = {
      {"mode", plan.adaptive ? "adaptive" : "fixed"},
      {"rounds", outcome.rounds},
      {"stopped_because", outcome.stopped_because},
      {"interval", plan.adaptive ? "stop rule: " + std::string(lab::stop_rule_name) +
                                       " (here: each run one process, each side's own variance, no "
                                       "pool); ratio of geometric means"
                                 : std::string("95 % bootstrap of the ratio of medians")}};
  if (!plan.adaptive) return j;
  j.update({{"budget_seconds", plan.budget_seconds},
            {"min_rounds", plan.min_rounds},
            {"max_rounds", plan.max_rounds},
            {"look_rounds", plan.look_rounds},
            {"looks_taken", outcome.looks_taken},
            {"confidence", outcome.confidence},
            {"comparisons", outcome.compared},
            {"decided", outcome.decided},
            {"open", outcome.open},
            {"failing", outcome.failing}});
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
  const bool open = r->decided && !*r->decided && r->verdict == lab::difference::inside_noise;
  return {{"ratio", r->value},
          {"decided", r->decided ? json(*r->decided) : json(nullptr)},
          {"interval",
           r->range.valid() ? json{{"low", r->range.low}, {"high", r->range.high}} : json(nullptr)},
          {"p_value", r->p_value},
          {"enough_runs", r->has_power},
          {"verdict", open ? "inconclusive (open)" : verdict}};
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
      {"stopping", stopping_json(stopping, outcome)},
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

}  // namespace alloclab::program
