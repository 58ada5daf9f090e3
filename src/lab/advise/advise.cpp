#include "advise/advise.hpp"

#include <algorithm>
#include <optional>
#include <cmath>

#include <fmt/format.h>

#include "advise/agreement.hpp"
#include "advise/knob_trials.hpp"
#include "advise/malloc_advice.hpp"
#include "advise/program_runs.hpp"
#include "frames/replay/figures.hpp"
#include "frames/replay/replay_resources.hpp"
#include "mallocs/malloc_table.hpp"
#include "plan/plan.hpp"
#include "plan/request.hpp"
#include "text/plural.hpp"

namespace alloclab::lab {

namespace {

std::string mib(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

std::string bytes_text(double bytes) {
  if (bytes < 10 * 1024.0) return fmt::format("{:.0f} B", bytes);
  if (bytes < 10 * 1024.0 * 1024.0) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return mib(bytes);
}

// One measured cell of the replay.
struct replayed {
  std::string malloc, strategy;
  malloc_costs calls;    ///< malloc call time, ns per call per replay
  malloc_costs program;  ///< replayed program time, ns per call per replay (may be empty)
  double calls_median = 0, program_median = 0;  ///< their medians, as the results hold them
  double peak_growth = 0, after_free = 0;
};

replayed replayed_of(const model::cell& c, const replay_figures_out& rp) {
  replayed r;
  r.malloc = c.head.malloc;
  r.strategy = c.head.strategy;
  const std::string label = r.strategy == replay_malloc_strategy ? r.malloc : r.strategy;
  r.calls = {label, rp.ns_per_call.per_repetition};
  r.program = {label, rp.program_ns_per_call.per_repetition};
  r.calls_median = rp.ns_per_call.median;
  r.program_median = rp.program_ns_per_call.median;
  const auto median = [](const std::optional<model::spread>& s) {
    return s ? static_cast<double>(s->median) : 0.0;
  };
  r.peak_growth = median(rp.memory.peak_rss_growth_bytes);
  r.after_free =
      std::max(0.0, median(rp.memory.rss_after_free_bytes) - median(rp.memory.baseline_rss_bytes));
  return r;
}

const model::workload& replay_workload(const model::document& results) {
  for (const auto& w : results.workloads)
    if (w.kind == "trace") return w;
  throw usage_error("the results have no replay of a trace (run `alloclab replay TRACE` first)");
}

// The replay's trace must be this trace: same threads, allocations, and monotonic footprint
// (a renamed copy is the same trace; a different one is refused, not advised on).
void check_same_trace(const model::workload& w, const advised_trace& t, const std::string& path) {
  const auto* figures = w.figures.as<replay_workload_figures>();
  if (figures == nullptr || figures->trace.threads != t.file->threads().size() ||
      figures->trace.monotonic_footprint != t.summary.monotonic_footprint)
    throw usage_error(fmt::format(
        "those results replayed '{}', a different trace from '{}' (threads or monotonic "
        "footprint differ); replay this trace first",
        figures == nullptr ? std::string("?") : figures->trace.path, path));
}

// The replay's cells split into process-wide mallocs (baseline first) and resources.
struct replay_cells {
  replayed baseline;
  std::vector<replayed> mallocs, resources;
  bool program_time = false;  ///< every malloc cell has replayed program times
  // Advice ranks by malloc call time: against `try`'s real runs of four Debian programs it
  // ranked the mallocs better than the replayed program time (docs/replay.md, "Which replay
  // figure advise ranks by"); the program time is shown beside it.
  const malloc_costs& figure(const replayed& r) const { return r.calls; }
  /// The process-wide mallocs at their defaults (tunings are judged in the knob section).
  std::vector<const replayed*> plain_mallocs() const {
    std::vector<const replayed*> out;
    for (const auto& m : mallocs)
      if (!tuning_of(m.malloc)) out.push_back(&m);
    return out;
  }
  std::vector<malloc_costs> figures() const {
    std::vector<malloc_costs> out;
    for (const replayed* m : plain_mallocs()) out.push_back(figure(*m));
    return out;
  }
  std::string figure_name() const { return "malloc call time"; }
};

replay_cells cells_of(const model::workload& w) {
  replay_cells cells;
  const std::string& base = w.baseline.malloc;
  bool have_base = false;
  for (const auto& c : w.cells) {
    const auto* figures = c.figures.as<replay_cell_figures>();
    if (c.head.status != "ok" || figures == nullptr || !figures->replay) continue;
    replayed r = replayed_of(c, *figures->replay);
    if (r.strategy != replay_malloc_strategy) {
      cells.resources.push_back(std::move(r));
    } else if (r.malloc == base && !have_base) {
      cells.baseline = std::move(r);
      have_base = true;
    } else {
      cells.mallocs.push_back(std::move(r));
    }
  }
  if (!have_base)
    throw usage_error(fmt::format(
        "the replay has no measured baseline cell ({}): nothing to compare with", base));
  cells.program_time = !cells.baseline.program.samples.empty();
  for (const auto& m : cells.mallocs) cells.program_time &= !m.program.samples.empty();
  return cells;
}

std::string rss_change(const replayed& c, const replayed& base) {
  const double change =
      base.peak_growth > 0 ? 100.0 * (c.peak_growth - base.peak_growth) / base.peak_growth : 0.0;
  return fmt::format(
      "   in the replay: peak RSS growth {} vs {} ({:+.0f} %), {} vs {} resident after the last "
      "free\n",
      mib(c.peak_growth), mib(base.peak_growth), change, mib(c.after_free), mib(base.after_free));
}

const replayed* find_malloc_cell(const replay_cells& cells, const std::string& malloc) {
  for (const auto& m : cells.mallocs)
    if (m.malloc == malloc) return &m;
  return nullptr;
}

// The fewest repetitions of any side.
std::size_t fewest(const std::vector<malloc_costs>& costs, const malloc_costs& base) {
  std::size_t n = base.samples.size();
  for (const auto& c : costs) n = std::min(n, c.samples.size());
  return n;
}

std::string replay_source(const replay_cells& cells, const std::vector<malloc_costs>& costs) {
  return fmt::format(
      "estimate (replay): the replay's {} per call, {} whole replays or more per malloc, each in a "
      "fresh process; its verdicts are about the replay (a U test over replays), not the program",
      cells.figure_name(), fewest(costs, cells.figure(cells.baseline)));
}

// The replay's judgements, each line saying that it is the replay's.
std::string render_replay_advice(const malloc_advice& a, const std::string& source) {
  std::string out = fmt::format("   {}; ratios {}\n", source, ratio_convention(a.baseline));
  if (a.others.empty())
    return out + fmt::format("   only {} was measured: replay with --malloc all\n", a.baseline);
  for (const malloc_judgement& j : a.others)
    out += fmt::format("   estimate (replay) {}: {}\n", j.malloc,
                       replay_judgement_text(j, a.noise_floor_percent));
  return out;
}

malloc_advice replay_advice(const replay_cells& cells, bool program_time, double floor) {
  std::vector<malloc_costs> costs;
  for (const replayed* m : cells.plain_mallocs())
    costs.push_back(program_time ? m->program : m->calls);
  return advise_malloc(program_time ? cells.baseline.program : cells.baseline.calls, costs, floor);
}

// The real runs of the program (null without them); a different program is refused.
std::optional<program_runs> read_real_runs(const replay_cells& cells, const advise_options& options,
                                           const std::vector<std::string>& command) {
  if (options.real == nullptr) return std::nullopt;
  program_runs runs = read_program_runs(program_part(*options.real), cells.baseline.malloc);
  if (!same_program(command, runs.command))
    throw usage_error(
        fmt::format("--real: those runs ran '{}', the trace recorded '{}': not the same program",
                    runs.command.empty() ? "?" : runs.command.front(),
                    command.empty() ? "?" : command.front()));
  return runs;
}

// The real runs without their knob settings (judged against their own malloc's defaults in the
// knob section): the malloc comparison is of mallocs at their defaults.
program_runs plain_mallocs_of(const program_runs& runs) {
  program_runs plain = runs;
  plain.others.clear();
  plain.filed.clear();
  for (std::size_t i = 0; i < runs.others.size(); ++i) {
    if (tuning_of(runs.others[i].malloc)) continue;
    plain.others.push_back(runs.others[i]);
    if (!runs.filed.empty()) plain.filed.push_back(runs.filed[i]);
  }
  return plain;
}

// The real runs' malloc advice; `source` says what they are, `method` how `try` made their
// intervals.
malloc_advice real_advice(const program_runs& all, double floor, std::string& source,
                          std::string& method) {
  const program_runs runs = plain_mallocs_of(all);
  source =
      fmt::format("real runs of the program: CPU time (user + sys), {} runs or more per malloc",
                  fewest(runs.others, runs.baseline));
  if (!runs.filed_interval.empty())
    method = "real runs' ratios and intervals: those `try` filed (" + runs.filed_interval + ")";
  return runs.filed.empty() ? advise_malloc(runs.baseline, runs.others, floor)
                            : advise_from_filed(runs.baseline.malloc, runs.filed, floor);
}

// A knob setting the real runs tried, judged against its own malloc's defaults.
struct real_knob {
  std::string label;
  tuning of;
  malloc_judgement judgement;  ///< defaults ÷ setting, CPU time (> 1: the setting is faster)
  std::string note;            ///< how it was judged, when not as the mallocs were
};

const malloc_costs* costs_named(const program_runs& runs, const std::string& name) {
  if (runs.baseline.malloc == name) return &runs.baseline;
  for (const malloc_costs& c : runs.others)
    if (c.malloc == name) return &c;
  return nullptr;
}

// Each knob setting of the real runs whose malloc's defaults ran too.
std::vector<real_knob> real_knobs_of(const program_runs& runs, double floor) {
  std::vector<real_knob> knobs;
  for (std::size_t i = 0; i < runs.others.size(); ++i) {
    const std::optional<tuning> t = tuning_of(runs.others[i].malloc);
    const malloc_costs* base = t ? costs_named(runs, t->base) : nullptr;
    if (base == nullptr) continue;
    real_knob k{runs.others[i].malloc, *t, {}, {}};
    if (runs.filed.empty()) {
      k.judgement = advise_malloc(*base, {runs.others[i]}, floor).others.front();
    } else if (base == &runs.baseline) {  // try's own ratio and interval
      k.judgement = advise_from_filed(base->malloc, {runs.filed[i]}, floor).others.front();
    } else {
      k.judgement = advise_malloc(*base, {runs.others[i]}, floor).others.front();
      k.note = fmt::format("; from the runs' CPU times (try filed intervals against {} only)",
                           runs.baseline.malloc);
    }
    knobs.push_back(std::move(k));
  }
  return knobs;
}

// What the advice rests on: the real runs' judgements (when made) and the replay's estimate.
struct malloc_evidence {
  trace::replay_trust trust;  ///< whether the replay's ranking can predict the program's
  std::optional<malloc_advice> real;
  std::vector<real_knob> real_knobs;  ///< the knob settings the real runs tried
  std::string real_source, real_method;
  malloc_advice replay;
  std::vector<replay_agreement> agreements;  ///< call time, then program time (when replayed)
  std::size_t reversals() const {
    std::size_t n = 0;
    for (const auto& a : agreements) n = std::max(n, a.reversed.size());
    return n;
  }
};

malloc_evidence gather_malloc_evidence(const replay_cells& cells, const advise_options& options,
                                       const std::vector<std::string>& command,
                                       const trace::replay_trust& trust) {
  malloc_evidence e;
  e.trust = trust;
  const double floor = options.noise_floor_percent;
  if (const std::optional<program_runs> runs = read_real_runs(cells, options, command)) {
    e.real = real_advice(*runs, floor, e.real_source, e.real_method);
    e.real_knobs = real_knobs_of(*runs, floor);
  }
  e.replay = replay_advice(cells, false, floor);
  if (e.real) {
    e.agreements.push_back(agree(e.replay, *e.real));
    if (cells.program_time)
      e.agreements.push_back(agree(replay_advice(cells, true, floor), *e.real));
  }
  return e;
}

void advise_malloc_section(std::string& out, const replay_cells& cells, const malloc_evidence& e,
                           double floor) {
  out += "1. Process-wide malloc\n";
  if (e.real)
    out += render_malloc_advice(*e.real, e.real_source);
  else
    out += "   real runs: none; the lines below are the replay's estimate alone\n";
  out += render_replay_advice(e.replay, replay_source(cells, cells.figures()));
  out += replay_trust_line(e.trust);
  for (std::size_t i = 0; i < e.agreements.size(); ++i)
    out += render_agreement(e.agreements[i], i == 0 ? "malloc call time" : "replayed program time");
  if (e.real)
    out +=
        fmt::format("   estimate (replay) alone would answer: {}\n", answer_text(e.replay, true));
  if (!e.real && cells.program_time)
    out += fmt::format("   estimate (replay) by replayed program time instead: {}\n",
                       answer_text(replay_advice(cells, true, floor), true));
  const malloc_advice& chosen = e.real ? *e.real : e.replay;
  if (chosen.switch_to)
    if (const replayed* m = find_malloc_cell(cells, chosen.others[*chosen.switch_to].malloc))
      out += rss_change(*m, cells.baseline);
}

// The malloc the answer keeps or switches to.
const std::string& chosen_malloc(const malloc_advice& a) {
  return a.switch_to ? a.others[*a.switch_to].malloc : a.baseline;
}

// The answer's knob part, from the real runs: the fastest decided setting of `malloc`, or its
// defaults with every tried setting's verdict.
std::string knob_answer(const std::vector<real_knob>& knobs, const std::string& malloc,
                        double floor) {
  const real_knob* best = nullptr;
  std::vector<std::string> verdicts;
  for (const real_knob& k : knobs) {
    if (k.of.base != malloc) continue;
    verdicts.push_back(k.label + " " + verdict_of(k.judgement, floor));
    if (k.judgement.faster() && (best == nullptr || k.judgement.ratio > best->judgement.ratio))
      best = &k;
  }
  if (best != nullptr)
    return fmt::format("knob: set {} ({}): {} against {}'s defaults", best->of.setting, best->label,
                       judgement_text(best->judgement, floor), malloc);
  if (verdicts.empty()) return fmt::format("knobs: no setting of {} tried", malloc);
  return fmt::format("knobs: keep {}'s defaults, no setting tried decided faster ({})", malloc,
                     fmt::join(verdicts, "; "));
}

// The answer in one line: the real runs' when made; else the replay's, labelled an estimate.
std::string answer_line(const malloc_evidence& e, const std::string& no_real_because,
                        double floor) {
  if (!e.real && !e.trust.predictive)
    return fmt::format("answer: none: no real runs ({}), and the replay's ranking is {}\n",
                       no_real_because, trace::not_predictive_text);
  if (!e.real)
    return fmt::format(
        "answer: none from real runs ({}); estimate (replay): {}. Confirm with real runs before "
        "acting\n",
        no_real_because, answer_text(e.replay, true));
  std::string out = fmt::format("answer: {}; {} (real runs)\n", answer_text(*e.real),
                                knob_answer(e.real_knobs, chosen_malloc(*e.real), floor));
  if (const std::size_t n = e.reversals(); n > 0)
    out += fmt::format(
        "WARNING: the replay's estimate puts {} on the other side of 1 from the real runs' "
        "decided direction (REVERSAL lines below): trust the real runs\n",
        lab::counted(n, "malloc"));
  return out;
}

const replayed* cell_named(const replay_cells& cells, const std::string& malloc) {
  return malloc == cells.baseline.malloc ? &cells.baseline : find_malloc_cell(cells, malloc);
}

// The knob settings the real runs tried, each against its own malloc's defaults.
void real_knob_lines(std::string& out, const malloc_evidence& e, const advise_options& options) {
  out += fmt::format(
      "   real runs decide: each setting's CPU time (user + sys) against its own malloc's "
      "defaults in the same rounds; ratios defaults ÷ setting, > 1: the setting is faster\n   {}\n",
      !options.knob_trials_line.empty() ? options.knob_trials_line
      : e.real_knobs.empty() ? "knob settings tried as real runs: none (--real's runs have none)"
                             : "knob settings tried as real runs: those --real's runs had");
  for (const real_knob& k : e.real_knobs)
    out += fmt::format("   real runs {} ({} vs {}): {}{}\n",
                       k.of.setting.empty() ? k.label : k.of.setting, k.label, k.of.base,
                       judgement_text(k.judgement, options.noise_floor_percent), k.note);
}

bool tried_for_real(const malloc_evidence& e, const std::string& label) {
  return std::any_of(e.real_knobs.begin(), e.real_knobs.end(),
                     [&](const real_knob& k) { return k.label == label; });
}

// The replay's sweep: every tuning cell against its malloc's defaults, an estimate.
void advise_tunables(std::string& out, const replay_cells& cells, const malloc_evidence& e,
                     const advise_options& options) {
  out += "2. Tunables and knobs\n";
  if (e.real) real_knob_lines(out, e, options);
  out += fmt::format(
      "   estimate (replay){}: each setting replayed beside its malloc's defaults, by {}\n",
      e.real ? ", the sweep that chose what the real runs tried" : " alone: no real runs",
      cells.figure_name());
  bool any = false;
  for (const auto& c : cells.mallocs) {
    const std::optional<tuning> t = tuning_of(c.malloc);
    const replayed* base = t ? cell_named(cells, t->base) : nullptr;
    if (base == nullptr) continue;
    any = true;
    const malloc_judgement j =
        advise_malloc(cells.figure(*base), {cells.figure(c)}, options.noise_floor_percent)
            .others.front();
    const double freed_change = c.after_free - base->after_free;
    const bool memory_matters =
        std::abs(freed_change) > std::max(1.0 * (1 << 20), 0.1 * base->peak_growth);
    out += fmt::format("   estimate (replay) {} ({} vs {}){}: {}\n{}",
                       t->setting.empty() ? c.malloc : t->setting, c.malloc, base->malloc,
                       tried_for_real(e, c.malloc) ? " [tried as real runs]" : "",
                       replay_judgement_text(j, options.noise_floor_percent), rss_change(c, *base));
    if (memory_matters)
      out += fmt::format("   it changes what stays resident after the last free by {}\n",
                         mib(freed_change));
  }
  if (!any)
    out +=
        "   not measured: replay with --malloc all (glibc_arena2, glibc_trim, glibc_nocliff) or "
        "--variants (e.g. 'glibc:arena_max=1,jemalloc:dirty_decay_ms=0')\n";
}

struct class_cover {
  std::vector<std::size_t> buckets;  // log2 buckets, most frequent first
  double share = 0;                  // of allocations they cover
  std::size_t largest_bucket = 0;
};

class_cover cover(const trace::log2_histogram& sizes, std::uint64_t total, double wanted) {
  class_cover c;
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] > 0) order.push_back(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  std::uint64_t covered = 0;
  for (std::size_t k : order) {
    if (total == 0 || static_cast<double>(covered) >= wanted * static_cast<double>(total)) break;
    c.buckets.push_back(k);
    covered += sizes[k];
    c.largest_bucket = std::max(c.largest_bucket, k);
  }
  c.share = total == 0 ? 0 : static_cast<double>(covered) / static_cast<double>(total);
  return c;
}

std::string bucket_text(std::size_t k) {
  return fmt::format("[{}, {})", k == 0 ? 0 : std::uint64_t{1} << k, std::uint64_t{1} << (k + 1));
}

// A resource replayed against the process-wide malloc, by malloc call time.
std::string resource_text(const replay_cells& cells, const char* name, double floor) {
  for (const auto& r : cells.resources)
    if (r.strategy == name) {
      const malloc_judgement j =
          advise_malloc(cells.baseline.calls, {r.calls}, floor).others.front();
      return fmt::format("{} (the process-wide malloc ÷ {})", replay_judgement_text(j, floor),
                         name);
    }
  return {};
}

void advise_pools(std::string& out, const trace::trace_summary& s, const replay_cells& cells,
                  double floor) {
  out += "3. Size classes and a pool\n";
  const class_cover c = cover(s.sizes, s.allocations, 0.9);
  std::string classes;
  for (std::size_t k : c.buckets)
    classes += fmt::format("{}{} {:.0f} %", classes.empty() ? "" : ", ", bucket_text(k),
                           100.0 * static_cast<double>(s.sizes[k]) /
                               static_cast<double>(std::max<std::uint64_t>(1, s.allocations)));
  out += fmt::format("   {} size classes (log2) cover {:.0f} % of the {} allocations: {}\n",
                     c.buckets.size(), 100.0 * c.share, s.allocations, classes);
  std::uint64_t below = 0;
  const std::size_t cap_bucket = std::min<std::size_t>(c.largest_bucket, 19);
  for (std::size_t k = 0; k <= cap_bucket; ++k) below += s.sizes[k];
  const std::uint64_t max_block = std::uint64_t{1} << (cap_bucket + 1);
  out += fmt::format(
      "   suggested: alloclab::multipool_resource with multipool_options{{.max_block_size = {}}} "
      "(serves {:.1f} % of the allocations from its classes; larger requests go to the upstream)\n",
      max_block,
      100.0 * static_cast<double>(below) /
          static_cast<double>(std::max<std::uint64_t>(1, s.allocations)));
  for (const char* name : {"alloclab_multipool", "alloclab_concurrent_multipool", "pmr_unsync_pool",
                           "pmr_sync_pool"}) {
    const std::string text = resource_text(cells, name, floor);
    if (!text.empty()) out += fmt::format("   estimate (replay) through {}: {}\n", name, text);
  }
}

void advise_arena(std::string& out, const advised_trace& t, const replay_cells& cells,
                  double floor) {
  const trace::trace_summary& s = t.summary;
  out += "4. Arena\n";
  const std::uint64_t bytes = replay_arena_bytes(t.facts);
  const double times_peak = s.peak_live_bytes == 0 ? 0
                                                   : static_cast<double>(s.monotonic_footprint) /
                                                         static_cast<double>(s.peak_live_bytes);
  out += fmt::format(
      "   a bump arena would consume the monotonic footprint, {} ({:.1f}x the peak live bytes, "
      "{}); size it {} (footprint + aligned padding + 25 % margin) for a phase that frees "
      "everything together\n",
      bytes_text(static_cast<double>(s.monotonic_footprint)), times_peak,
      bytes_text(static_cast<double>(s.peak_live_bytes)), bytes_text(static_cast<double>(bytes)));
  if (times_peak > 4)
    out += fmt::format(
        "   over the whole run the arena holds {:.1f}x what is live at the peak: use one only for "
        "phases that end with everything freed, not for the program as a whole\n",
        times_peak);
  const std::string text = resource_text(cells, "arena", floor);
  if (!text.empty()) out += fmt::format("   estimate (replay) through that arena: {}\n", text);
}

}  // namespace

namespace {

std::string advice_heading(const advised_trace& t, const std::string& trace_path) {
  return fmt::format("alloclab advise: {} ({}, {}, peak live {})\n", trace_path,
                     lab::counted(t.file->threads().size(), "thread"),
                     lab::counted(t.summary.allocations, "allocation"),
                     bytes_text(static_cast<double>(t.summary.peak_live_bytes)));
}

std::string advice_method_lines(const advised_trace& t, const model::document& results,
                                const replay_cells& cells, const advise_options& options,
                                const std::string& real_method) {
  std::string out = "method\n";
  for (const std::string& note : options.notes) out += "   " + note + "\n";
  if (!real_method.empty()) out += "   " + real_method + "\n";
  out += fmt::format(
      "   verdicts: decided when the U test gives p < 0.05 and the 95 % interval lies beyond the "
      "±{0:g} % noise floor; the same within ±{0:g} % when the interval lies inside it; open "
      "otherwise\n",
      options.noise_floor_percent);
  out += fmt::format(
      "   estimate (replay): the results of {}: baseline {} at {:.1f} ns per call{}, peak RSS "
      "growth {} for {} live at the peak (fragmentation {:.2f})\n",
      results.created_utc.empty() ? std::string("?") : results.created_utc, cells.baseline.malloc,
      cells.baseline.calls_median,
      cells.program_time ? fmt::format(" ({:.1f} ns of replayed program time per call)",
                                       cells.baseline.program_median)
                         : std::string(),
      mib(cells.baseline.peak_growth), mib(static_cast<double>(t.summary.peak_live_bytes)),
      replay_fragmentation(cells.baseline.peak_growth, t.summary.peak_live_bytes).value_or(0.0));
  return out;
}

}  // namespace

std::string replay_trust_line(const trace::replay_trust& trust) {
  if (trust.predictive) return {};
  std::string reasons;
  for (const std::string& r : trust.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
  return fmt::format("   estimate (replay) ranking: {} ({})\n", trace::not_predictive_text,
                     reasons.empty() ? "see trace info" : reasons);
}

std::string advise(const advised_trace& t, const std::string& trace_path,
                   const model::document& results, const advise_options& options) {
  const model::workload& w = replay_workload(results);
  const replay_cells cells = cells_of(w);
  check_same_trace(w, t, trace_path);
  const malloc_evidence evidence =
      gather_malloc_evidence(cells, options, t.file->header().command, t.facts.trust);
  std::string out = advice_heading(t, trace_path) +
                    answer_line(evidence, options.no_real_because, options.noise_floor_percent);
  if (results.smoke_test || results.debug_build)
    out += "WARNING: the replay was a smoke test or a debug build: do not act on its figures\n";
  out += "evidence\n";
  advise_malloc_section(out, cells, evidence, options.noise_floor_percent);
  advise_tunables(out, cells, evidence, options);
  advise_pools(out, t.summary, cells, options.noise_floor_percent);
  advise_arena(out, t, cells, options.noise_floor_percent);
  return out + advice_method_lines(t, results, cells, options, evidence.real_method);
}

}  // namespace alloclab::lab
