#include "frames/program/program_results.hpp"

#include <fmt/format.h>

#include "frames/program/run_description.hpp"
#include "results/cell_parts.hpp"

namespace alloclab::program {
namespace {

using knob_readings = std::map<std::string, lab::knob_reading_figures>;

constexpr const char* measures_note =
    "CPU time is user + sys from wait4's rusage: the program's own and that of every descendant "
    "it waited for (its whole process tree, when it reaps its children). Peak RSS is ru_maxrss: "
    "the largest single process of that tree, not their sum.";

constexpr const char* liveness_note =
    "each run preloads liballoclab_program_probe.so with the malloc; its constructor proves "
    "in every process that loads it that malloc and free are the malloc's (dlsym/dladdr) and "
    "its proof symbols resolve; a run without that proof is a failed run. The probe also reads "
    "back each of the malloc's knobs from the malloc itself (jemalloc mallctl, mimalloc "
    "mi_option_get, tcmalloc GetMemoryReleaseRate): a knob read back different from its "
    "setting fails the run. glibc offers no read-back of its tunables: mmap_threshold is "
    "observed (mallinfo2: a request at the threshold beyond the heap's free bytes is "
    "mmapped, one below it is not), the others are reported as set via GLIBC_TUNABLES, "
    "unverifiable";

// How the rounds ended and how the intervals were made.
lab::program_stopping stopping_of(const stopping_plan& plan, const stopping_outcome& outcome) {
  lab::program_stopping s;
  s.mode = plan.adaptive ? "adaptive" : "fixed";
  s.rounds = outcome.rounds;
  s.stopped_because = outcome.stopped_because;
  s.interval = plan.adaptive ? "stop rule: " + std::string(lab::stop_rule_name) +
                                   " (here: each run one process, each side's own variance, no "
                                   "pool); ratio of geometric means"
                             : "95 % bootstrap of the ratio of medians";
  if (!plan.adaptive) return s;
  s.budget_seconds.emplace(plan.budget_seconds);
  s.min_rounds.emplace(plan.min_rounds);
  s.max_rounds.emplace(plan.max_rounds);
  s.look_rounds.emplace(plan.look_rounds);
  s.looks_taken.emplace(outcome.looks_taken);
  s.confidence.emplace(outcome.confidence);
  s.comparisons.emplace(outcome.compared);
  s.decided.emplace(outcome.decided);
  s.open.emplace(outcome.open);
  s.failing.emplace(outcome.failing);
  return s;
}

std::optional<lab::program_ratio> ratio_of(const std::optional<ratio_figure>& r,
                                           const char* (*verdict_of)(lab::difference)) {
  if (!r) return std::nullopt;
  const bool open = r->decided && !*r->decided && r->verdict == lab::difference::inside_noise;
  lab::program_ratio out;
  out.ratio = r->value;
  out.decided = r->decided;
  if (r->range.valid()) out.interval = lab::model::interval{r->range.low, r->range.high};
  out.p_value = r->p_value;
  out.enough_runs = r->has_power;
  out.verdict = open ? "inconclusive (open)" : verdict_of(r->verdict);
  return out;
}

std::string hex(std::uint64_t h) {
  return fmt::format("{:016x}", h);
}

const knob_setting* setting_of(const variant& v, const std::string& knob) {
  for (const knob_setting& s : v.settings)
    if (s.knob == knob) return &s;
  return nullptr;
}

// What the malloc reported it uses for each of its knobs, beside what the variant set.
knob_readings readings_of(const std::vector<mallocs::knob_reading>& readings, const variant& v) {
  knob_readings out;
  for (const mallocs::knob_reading& r : readings) {
    const knob_setting* s = setting_of(v, r.knob);
    lab::knob_reading_figures f;
    if (s != nullptr) f.set = s->value;
    f.value = r.value;
    f.how = r.how;
    if (s != nullptr && r.value) f.applied = same_knob_value(v.malloc, r.knob, s->value, *r.value);
    out[r.knob] = std::move(f);
  }
  return out;
}

// The variant's knobs over its runs: "not applied" when a run read one back different,
// "unverifiable" when the malloc cannot report one (glibc), "applied" when every run read each
// back as set; "no knobs set" for defaults, "not read" when no run reached the probe.
lab::knob_check_figures knob_check_of(const variant& v, std::size_t index,
                                      const std::vector<run_row>& rows) {
  lab::knob_check_figures check;
  bool any_not_applied = false, any_unreadable = false;
  for (const run_row& row : rows) {
    if (row.combination != index || row.record.knobs.empty()) continue;
    const knob_readings readings = readings_of(row.record.knobs, v);
    if (!check.read_back) check.read_back = readings;
    for (const knob_setting& s : v.settings) {
      const auto r = readings.find(s.knob);
      if (r == readings.end() || !r->second.value)
        any_unreadable = true;
      else if (!r->second.applied.value())
        any_not_applied = true;
    }
  }
  check.status = !check.read_back     ? "not read"
                 : v.settings.empty() ? "no knobs set"
                 : any_not_applied    ? "not applied"
                 : any_unreadable     ? "unverifiable"
                                      : "applied";
  return check;
}

lab::combination_result combination_of(const variant& v, const combination_figures& c,
                                       lab::knob_check_figures knob_check) {
  lab::combination_result out;
  out.name = c.label;
  out.malloc = c.malloc;
  for (const knob_setting& s : v.settings) out.knobs[s.knob] = s.value;
  for (const auto& [name, value] : knob_environment(v)) out.knob_environment[name] = value;
  out.knob_check = std::move(knob_check);
  out.runs_ok = c.runs_ok;
  out.runs_failed = c.runs_failed;
  out.failures = c.failures;
  out.median = c.median;
  out.cpu_vs_baseline = ratio_of(c.cpu, cpu_verdict);
  out.peak_rss_vs_baseline = ratio_of(c.peak_rss, memory_verdict);
  out.pareto_front = c.on_pareto_front;
  for (std::uint64_t h : c.stdout_hashes) out.stdout_hashes.push_back(hex(h));
  return out;
}

lab::program_run_row run_of(const run_row& row, const std::vector<variant>& combinations) {
  lab::program_run_row out;
  out.figures = row.record.figures;
  out.round = row.round;
  out.position = row.position;
  out.combination = combinations[row.combination].label();
  out.ok = row.record.ok;
  out.malloc_live = row.record.live;
  if (!row.record.ok) out.reason = row.record.reason;
  out.exit_code = row.record.exit_code;
  out.stdout_hash = hex(row.record.stdout_hash);
  out.stdout_bytes = row.record.stdout_bytes;
  out.knobs_read_back = readings_of(row.record.knobs, combinations[row.combination]);
  return out;
}

std::optional<std::string> unless_empty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional(text);
}

}  // namespace

lab::program_results_section program_results(const try_plan& plan, const std::vector<run_row>& rows,
                                             const program_figures& figures, bool output_checked,
                                             const stopping_plan& stopping,
                                             const stopping_outcome& outcome) {
  lab::program_results_section p;
  const run_setup& s = plan.setup;
  p.command = s.argv;
  p.working_directory = unless_empty(s.working_directory);
  p.stdin_path = unless_empty(s.stdin_path);
  p.timeout_seconds = static_cast<double>(s.timeout.count()) / 1000;
  p.rounds = outcome.rounds;
  p.stopping = stopping_of(stopping, outcome);
  p.seed = plan.seed;
  p.order = "every combination once per round, each round in a fresh random order";
  if (!figures.combinations.empty()) p.baseline = figures.combinations[figures.baseline].label;
  p.noise_floor_percent = figures.noise_floor * 100;
  p.measures = measures_note;
  p.liveness = liveness_note;
  p.output.mode = output_checked ? "check" : "discard";
  p.output.consistent = figures.output.consistent;
  p.output.finding = unless_empty(figures.output.finding);
  for (std::size_t i = 0; i < plan.combinations.size(); ++i)
    p.combinations.push_back(combination_of(plan.combinations[i], figures.combinations[i],
                                            knob_check_of(plan.combinations[i], i, rows)));
  for (const run_row& row : rows) p.runs.push_back(run_of(row, plan.combinations));
  return p;
}

lab::program_results_section program_section(const try_plan& plan, const std::vector<run_row>& rows,
                                             const stopping_outcome& outcome) {
  const std::optional<lab::stop_rule> stopped_at =
      plan.stopping.adaptive ? std::optional(lab::final_rule(plan.stopping, outcome))
                             : std::nullopt;
  const program_figures figures =
      compute_figures(plan.combinations, rows, plan.check_output,
                      lab::default_noise_floor_percent / 100, stopped_at);
  return program_results(plan, rows, figures, plan.check_output, plan.stopping, outcome);
}

lab::run_records run_records_of(const lab::round_records& ran, const stopping_outcome& outcome,
                                double duration_seconds) {
  lab::run_records run;
  run.records = ran.records;
  run.duration_seconds = duration_seconds;
  run.frame_facts[program_frame_name]["stopping"] = lab::model::write_json(outcome);
  return run;
}

void add_program_results(const lab::frame_results_input& in, lab::model::document& results) {
  if (!lab::has_frame(in.plan, lab::frame::program)) return;
  const std::vector<lab::task> ran(
      in.plan.schedule.begin(),
      in.plan.schedule.begin() + static_cast<std::ptrdiff_t>(in.run.records.size()));
  const auto outcome = lab::model::read_json<stopping_outcome>(
      in.run.frame_facts.at(program_frame_name).at("stopping"), "/stopping");
  results.parts.set(lab::program_document_figures{
      program_section(program_part(in.plan), rows_of(ran, in.run.records), outcome)});
  describe_program_run(results);
}

}  // namespace alloclab::program
