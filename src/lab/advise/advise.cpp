#include "advise/advise.hpp"

#include <algorithm>
#include <optional>
#include <cmath>

#include <fmt/format.h>

#include "advise/agreement.hpp"
#include "advise/malloc_advice.hpp"
#include "advise/program_runs.hpp"
#include "frames/replay/figures.hpp"
#include "frames/replay/replay_resources.hpp"
#include "process/malloc_registry.hpp"
#include "plan/plan.hpp"
#include "plan/request.hpp"
#include "render/plural.hpp"

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
  std::vector<malloc_costs> figures() const {
    std::vector<malloc_costs> out;
    for (const auto& m : mallocs) out.push_back(figure(m));
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

// What the replayed program time alone would advise: shown beside the call time's advice.
std::string program_time_opinion(const replay_cells& cells, double noise_floor_percent) {
  std::vector<malloc_costs> costs;
  for (const auto& m : cells.mallocs) costs.push_back(m.program);
  const malloc_advice a = advise_malloc(cells.baseline.program, costs, noise_floor_percent);
  return fmt::format("   the replayed program time would say: {}\n",
                     a.switch_to ? "use " + a.others[*a.switch_to].malloc : "keep " + a.baseline);
}

void advise_malloc_section(std::string& out, const replay_cells& cells,
                           const advise_options& options, const std::vector<std::string>& command) {
  out += "1. Process-wide malloc\n";
  const std::vector<malloc_costs> replay_costs = cells.figures();
  const malloc_advice replay =
      advise_malloc(cells.figure(cells.baseline), replay_costs, options.noise_floor_percent);
  const std::string replay_source = fmt::format(
      "the replay's {} per call ({} whole replays or more per malloc, each in a "
      "fresh process)",
      cells.figure_name(), fewest(replay_costs, cells.figure(cells.baseline)));
  const malloc_advice* chosen = &replay;
  malloc_advice real;
  if (options.real != nullptr) {
    const program_runs runs = read_program_runs(program_part(*options.real), cells.baseline.malloc);
    if (!same_program(command, runs.command))
      throw usage_error(
          fmt::format("--real: those runs ran '{}', the trace recorded '{}': not the same program",
                      runs.command.empty() ? "?" : runs.command.front(),
                      command.empty() ? "?" : command.front()));
    real = runs.filed.empty()
               ? advise_malloc(runs.baseline, runs.others, options.noise_floor_percent)
               : advise_from_filed(runs.baseline.malloc, runs.filed, options.noise_floor_percent);
    out += render_malloc_advice(
        real, fmt::format("real runs of the program (CPU time, user + sys; {} runs or more per "
                          "malloc{})",
                          fewest(runs.others, runs.baseline),
                          runs.filed_interval.empty()
                              ? std::string()
                              : "; the ratios and intervals `try` filed: " + runs.filed_interval));
    for (const char* figure : {"program", "calls"}) {
      const bool program = std::string(figure) == "program";
      if (program && !cells.program_time) continue;
      std::vector<malloc_costs> costs;
      for (const auto& m : cells.mallocs) costs.push_back(program ? m.program : m.calls);
      const malloc_advice a = advise_malloc(program ? cells.baseline.program : cells.baseline.calls,
                                            costs, options.noise_floor_percent);
      out +=
          render_agreement(agree(a, real), program ? "replayed program time" : "malloc call time");
    }
    out += fmt::format("   the replay alone ({}) would say: {}\n", cells.figure_name(),
                       replay.switch_to ? "use " + replay.others[*replay.switch_to].malloc
                                        : "keep " + replay.baseline);
    chosen = &real;
  } else {
    out += render_malloc_advice(replay, replay_source);
    if (cells.program_time) out += program_time_opinion(cells, options.noise_floor_percent);
  }
  if (chosen->switch_to)
    if (const replayed* m = find_malloc_cell(cells, chosen->others[*chosen->switch_to].malloc))
      out += rss_change(*m, cells.baseline);
}

// The malloc a tuning varies, and how: a registry variant ("glibc_arena2") varies glibc by its
// environment; a knob variant ("jemalloc dirty_decay_ms=0") varies the malloc its label starts with.
struct tuning {
  std::string base;     // the malloc whose defaults it is compared with
  std::string setting;  // what it sets
};

std::optional<tuning> tuning_of(const std::string& label) {
  if (const std::size_t space = label.find(' '); space != std::string::npos)
    return tuning{label.substr(0, space), label.substr(space + 1)};
  if (label.rfind("glibc_", 0) != 0) return std::nullopt;
  tuning t{"glibc", {}};
  if (const heap::malloc_entry* e = heap::find_malloc(label))
    for (const auto& v : e->env)
      t.setting += fmt::format("{}{}={}", t.setting.empty() ? "" : " ", v.name, v.value);
  return t;
}

const replayed* cell_named(const replay_cells& cells, const std::string& malloc) {
  return malloc == cells.baseline.malloc ? &cells.baseline : find_malloc_cell(cells, malloc);
}

void advise_tunables(std::string& out, const replay_cells& cells, double noise_floor_percent) {
  out += fmt::format(
      "2. Tunables and knobs (each variant replayed beside its malloc's defaults; {})\n",
      cells.figure_name());
  bool any = false;
  for (const auto& c : cells.mallocs) {
    const std::optional<tuning> t = tuning_of(c.malloc);
    const replayed* base = t ? cell_named(cells, t->base) : nullptr;
    if (base == nullptr) continue;
    any = true;
    const malloc_judgement j =
        advise_malloc(cells.figure(*base), {cells.figure(c)}, noise_floor_percent).others.front();
    const double freed_change = c.after_free - base->after_free;
    const bool memory_matters =
        std::abs(freed_change) > std::max(1.0 * (1 << 20), 0.1 * base->peak_growth);
    out += fmt::format("   {} ({} vs {}): {}: {}\n{}", t->setting.empty() ? c.malloc : t->setting,
                       c.malloc, base->malloc,
                       j.faster()   ? "matters: faster"
                       : j.slower() ? "matters: slower"
                                    : "inconclusive for speed",
                       judgement_text(j, noise_floor_percent), rss_change(c, *base));
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
      return fmt::format("{} vs the process-wide malloc{}", judgement_text(j, floor),
                         j.faster()   ? ""
                         : j.slower() ? " (slower)"
                                      : "");
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
    if (!text.empty()) out += fmt::format("   replayed through {}: {}\n", name, text);
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
  if (!text.empty()) out += fmt::format("   replayed through that arena: {}\n", text);
}

}  // namespace

std::string advise(const advised_trace& t, const std::string& trace_path,
                   const model::document& results, const advise_options& options) {
  const model::workload& w = replay_workload(results);
  const replay_cells cells = cells_of(w);
  check_same_trace(w, t, trace_path);
  std::string out = fmt::format(
      "alloclab advise: {} ({}, {}, peak live {}), from the replay in the "
      "results of {}\n",
      trace_path, lab::counted(t.file->threads().size(), "thread"),
      lab::counted(t.summary.allocations, "allocation"),
      bytes_text(static_cast<double>(t.summary.peak_live_bytes)),
      results.created_utc.empty() ? std::string("?") : results.created_utc);
  if (results.smoke_test || results.debug_build)
    out += "WARNING: the replay was a smoke test or a debug build: do not act on these figures\n";
  out += fmt::format(
      "baseline: {} at {:.1f} ns per call{}, peak RSS growth {} for {} live at the peak "
      "(fragmentation {:.2f})\n",
      cells.baseline.malloc, cells.baseline.calls_median,
      cells.program_time ? fmt::format(" ({:.1f} ns of replayed program time per call)",
                                       cells.baseline.program_median)
                         : std::string(),
      mib(cells.baseline.peak_growth), mib(static_cast<double>(t.summary.peak_live_bytes)),
      replay_fragmentation(cells.baseline.peak_growth, t.summary.peak_live_bytes).value_or(0.0));
  advise_malloc_section(out, cells, options, t.file->header().command);
  advise_tunables(out, cells, options.noise_floor_percent);
  advise_pools(out, t.summary, cells, options.noise_floor_percent);
  advise_arena(out, t, cells, options.noise_floor_percent);
  return out;
}

}  // namespace alloclab::lab
