#include "main/replay_commands.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "process/malloc_registry.hpp"
#include "main/cli.hpp"
#include "main/commands.hpp"
#include "plan/malloc_choice.hpp"
#include "plan/plan.hpp"
#include "stats/decision.hpp"
#include "stats/ratio_text.hpp"
#include "frames/replay/replay_resources.hpp"
#include "trace/trace_info.hpp"
#include "trace/trace_reader.hpp"

namespace alloclab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct read_trace {
  std::unique_ptr<trace::trace_file> file;
  trace::trace_summary summary;
};

// A trace that cannot be read is bad input: one line, exit 2.
read_trace open_trace(const std::string& path) {
  try {
    read_trace t;
    t.file = std::make_unique<trace::trace_file>(path);
    t.summary = trace::summarize(*t.file);
    return t;
  } catch (const trace::trace_error& e) {
    throw usage_error(e.what());
  }
}

replay_trace_facts facts_of(const read_trace& t) {
  using k = trace::event_kind;
  replay_trace_facts f;
  f.threads = t.file->threads().size();
  f.monotonic_footprint = t.summary.monotonic_footprint;
  for (const k kind : {k::memalign, k::posix_memalign, k::aligned_alloc, k::valloc, k::pvalloc})
    f.aligned_allocations += t.summary.by_kind[static_cast<std::size_t>(kind)];
  return f;
}

std::string mib(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

std::string bytes_text(double bytes) {
  if (bytes < 10 * 1024.0) return fmt::format("{:.0f} B", bytes);
  if (bytes < 10 * 1024.0 * 1024.0) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return mib(bytes);
}

// ---- advise: reading the replay's results ----

struct cell_view {
  const json* cell = nullptr;
  std::string malloc, strategy;
  double ns_per_call = 0;
  std::optional<double> ratio;  // baseline ns / this ns (> 1: faster)
  double low = 0, high = 0;     // its 95 % interval (0 when none)
  double peak_growth = 0, after_free = 0, after_purge = 0;
  // The lab's one verdict rule (U test and interval, beyond the noise floor), as for peers.
  difference decision = difference::too_few;

  bool interval() const { return high > 0; }
  bool faster() const { return ratio && decision == difference::higher; }
  bool slower() const { return ratio && decision == difference::lower; }
  std::string ratio_text() const {
    if (!ratio) return "no ratio";
    return interval() ? ratio_with_interval(*ratio, low, high, "x")
                      : ratio_with_interval(*ratio, std::nullopt, std::nullopt, "x");
  }
  // Why a ratio is not a decision: "inside the noise" or too few replays for the U test.
  std::string undecided_text() const {
    return decision == difference::too_few
               ? "too few replays per side for the U test to reach p < 0.05: replay with "
                 "--repetitions 4 or more"
               : fmt::format(
                     "inside the noise: the U test and the interval do not both put it "
                     "{} % or more from 1",
                     default_noise_floor_percent);
  }
};

cell_view view_of(const json& c) {
  cell_view v;
  v.cell = &c;
  v.malloc = c.at("malloc");
  v.strategy = c.at("strategy");
  const json& r = c.at("replay");
  v.ns_per_call = r.at("ns_per_call").at("median");
  const json& m = r.at("memory");
  v.peak_growth = m.at("peak_rss_growth_bytes").at("median");
  const double base = m.at("baseline_rss_bytes").at("median");
  v.after_free = std::max(0.0, m.at("rss_after_free_bytes").at("median").get<double>() - base);
  v.after_purge = std::max(0.0, m.at("rss_after_purge_bytes").at("median").get<double>() - base);
  const json& vs = c.at("vs_std");
  if (vs.is_object() && vs.at("speedup_p50").is_number()) {
    v.ratio = vs.at("speedup_p50").get<double>();
    const json& range = vs.at("intervals").at("speedup_p50");
    if (range.is_object()) {
      v.low = range.at("low");
      v.high = range.at("high");
    }
    const bool power = vs.value("mark", std::string("?")) != "?";
    const double p = vs.value("p_value", json()).is_number() ? vs.at("p_value").get<double>() : 1.0;
    v.decision =
        judge_difference(p, power, interval{v.low, v.high}, default_noise_floor_percent / 100);
  }
  return v;
}

const json& replay_workload(const json& results) {
  for (const auto& w : results.at("workloads"))
    if (w.value("kind", "") == "trace") return w;
  throw usage_error("the results have no replay of a trace (run `alloclab replay TRACE` first)");
}

std::string rss_change(const cell_view& c, const cell_view& base) {
  const double change =
      base.peak_growth > 0 ? 100.0 * (c.peak_growth - base.peak_growth) / base.peak_growth : 0.0;
  return fmt::format("peak RSS growth {} vs {} ({:+.0f} %), {} vs {} resident after the last free",
                     mib(c.peak_growth), mib(base.peak_growth), change, mib(c.after_free),
                     mib(base.after_free));
}

void advise_malloc(std::string& out, const std::vector<cell_view>& mallocs, const cell_view& base) {
  out += "1. Process-wide malloc\n";
  const cell_view* best = nullptr;
  for (const auto& c : mallocs)
    if (&c != &base && c.ratio && (best == nullptr || *c.ratio > *best->ratio)) best = &c;
  if (best == nullptr) {
    out += fmt::format("   only {} was replayed: run `alloclab replay TRACE --malloc all`\n",
                       base.malloc);
    return;
  }
  if (best->faster()) {
    out += fmt::format(
        "   use {}: the replay runs {} faster than {} (ratio of ns per call, 95 % interval over "
        "replays in fresh processes; {:.1f} vs {:.1f} ns per call); {}\n",
        best->malloc, best->ratio_text(), base.malloc, best->ns_per_call, base.ns_per_call,
        rss_change(*best, base));
  } else {
    out += fmt::format("   inconclusive: no malloc beats {} (the best, {}, is {}: {}); keep {}\n",
                       base.malloc, best->malloc, best->ratio_text(), best->undecided_text(),
                       base.malloc);
  }
  for (const auto& c : mallocs)
    if (&c != &base && c.slower())
      out += fmt::format("   avoid {}: {} ({:.1f} ns per call)\n", c.malloc, c.ratio_text(),
                         c.ns_per_call);
}

void advise_tunables(std::string& out, const std::vector<cell_view>& mallocs,
                     const cell_view& base) {
  out += "2. glibc tunables (each a registry variant replayed beside plain glibc)\n";
  bool any = false;
  for (const auto& c : mallocs) {
    if (c.malloc.rfind("glibc_", 0) != 0) continue;
    const heap::malloc_entry* e = heap::find_malloc(c.malloc);
    std::string setting;
    for (const auto& v : e ? e->env : std::vector<heap::env_var>{})
      setting += fmt::format("{}{}={}", setting.empty() ? "" : " ", v.name, v.value);
    any = true;
    const double freed_change = c.after_free - base.after_free;
    const bool memory_matters =
        std::abs(freed_change) > std::max(1.0 * (1 << 20), 0.1 * base.peak_growth);
    std::string verdict = c.faster()   ? "matters: faster"
                          : c.slower() ? "matters: slower"
                                       : "inconclusive for speed (" + c.undecided_text() + ")";
    out += fmt::format("   {} ({}): {}, {}; {}", setting.empty() ? c.malloc : setting, c.malloc,
                       verdict, c.ratio_text(), rss_change(c, base));
    if (memory_matters)
      out += fmt::format("; it changes what stays resident after the last free by {}",
                         mib(freed_change));
    out += "\n";
  }
  if (!any)
    out += "   not measured: replay with --malloc all (glibc_arena2, glibc_trim, glibc_nocliff)\n";
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

const cell_view* find_strategy(const std::vector<cell_view>& cells, const std::string& name) {
  for (const auto& c : cells)
    if (c.strategy == name) return &c;
  return nullptr;
}

void advise_pools(std::string& out, const trace::trace_summary& s,
                  const std::vector<cell_view>& resources) {
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
    if (const cell_view* r = find_strategy(resources, name))
      out += fmt::format("   replayed through {}: {} vs the process-wide malloc{}\n", name,
                         r->ratio_text(),
                         r->faster()   ? ""
                         : r->slower() ? " (slower)"
                                       : " (inconclusive: " + r->undecided_text() + ")");
  }
}

void advise_arena(std::string& out, const trace::trace_summary& s, const replay_trace_facts& facts,
                  const std::vector<cell_view>& resources) {
  out += "4. Arena\n";
  const std::uint64_t bytes = replay_arena_bytes(facts);
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
  if (const cell_view* a = find_strategy(resources, "arena"))
    out += fmt::format("   replayed through that arena: {} vs the process-wide malloc{}\n",
                       a->ratio_text(),
                       a->faster()   ? ""
                       : a->slower() ? " (slower)"
                                     : " (inconclusive: " + a->undecided_text() + ")");
}

// The replay's trace must be this trace: same threads, allocations, and monotonic footprint
// (a renamed copy is the same trace; a different one is refused, not advised on).
void check_same_trace(const json& recorded, const read_trace& t, const std::string& trace_path) {
  const auto differs = [&](const char* key, std::uint64_t here) {
    return recorded.value(key, json()) != json(here);
  };
  if (differs("threads", t.file->threads().size()) ||
      differs("monotonic_footprint", t.summary.monotonic_footprint))
    throw usage_error(fmt::format(
        "those results replayed '{}', a different trace from '{}' (threads or monotonic "
        "footprint differ); replay this trace first",
        recorded.value("path", std::string("?")), trace_path));
}

}  // namespace

int print_malloc_env(const char* name) {
  try {
    const malloc_choice m = resolve_mallocs({name}, false).front();
    if (!m.missing.empty()) throw usage_error(m.missing);
    const heap::worker_env env = environment_for(m);
    std::string out;
    for (const auto& var : env.unset) out += "-u" + var + "\n";
    for (const auto& [key, value] : env.set) out += key + "=" + value + "\n";
    print_or_throw(out);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "alloclab: error: " << e.what() << '\n';
    return 2;
  }
}

int execute_replay(run_request request, const std::string& trace_path) {
  const read_trace t = open_trace(trace_path);
  request.replay.trace = fs::weakly_canonical(fs::absolute(trace_path)).string();
  request.replay.name = fs::path(trace_path).stem().string();
  request.replay.facts = facts_of(t);
  if (t.summary.allocations == 0)
    throw usage_error(fmt::format("'{}' has no allocations to replay", trace_path));
  // One whole replay per fresh process unless --processes says otherwise.
  if (!request.processes)
    request.processes = request.repetitions.value_or(request.quick ? replay_quick_repetitions
                                                                   : replay_default_repetitions);
  return execute_run(request);
}

std::string advise(const std::string& trace_path, const json& results) {
  const read_trace t = open_trace(trace_path);
  const json& w = replay_workload(results);
  std::vector<cell_view> mallocs, resources;
  for (const auto& c : w.at("cells")) {
    if (c.at("status") != "ok" || c.at("replay").is_null()) continue;
    (c.at("strategy") == replay_malloc_strategy ? mallocs : resources).push_back(view_of(c));
  }
  const std::string base_malloc = w.at("baseline").at("malloc");
  const auto base = std::find_if(mallocs.begin(), mallocs.end(),
                                 [&](const cell_view& c) { return c.malloc == base_malloc; });
  if (base == mallocs.end())
    throw usage_error(fmt::format(
        "the replay has no measured baseline cell ({}): nothing to compare with", base_malloc));
  check_same_trace(w.at("trace"), t, trace_path);
  std::string out = fmt::format(
      "alloclab advise: {} ({} threads, {} allocations, peak live {}), from the replay in the "
      "results of {}\n",
      trace_path, t.file->threads().size(), t.summary.allocations,
      bytes_text(static_cast<double>(t.summary.peak_live_bytes)),
      results.value("created_utc", std::string("?")));
  if (results.value("smoke_test", false) || results.value("debug_build", false))
    out += "WARNING: the replay was a smoke test or a debug build: do not act on these figures\n";
  out += fmt::format(
      "baseline: {} at {:.1f} ns per call, peak RSS growth {} for {} live at the "
      "peak (fragmentation {:.2f})\n",
      base->malloc, base->ns_per_call, mib(base->peak_growth),
      mib(static_cast<double>(t.summary.peak_live_bytes)),
      t.summary.peak_live_bytes == 0
          ? 0.0
          : base->peak_growth / static_cast<double>(t.summary.peak_live_bytes));
  advise_malloc(out, mallocs, *base);
  advise_tunables(out, mallocs, *base);
  advise_pools(out, t.summary, resources);
  advise_arena(out, t.summary, facts_of(t), resources);
  return out;
}

replay_commands::replay_commands(CLI::App& app, const std::string& command_line) {
  request_->run.command_line = command_line;
  run_request& r = request_->run;
  replay_ = app.add_subcommand(
      "replay",
      "Replay a recorded trace under each malloc (and through in-process resources) in fresh "
      "processes; writes DIR/<UTC time>/ and DIR/latest like `run`");
  advise_ = app.add_subcommand(
      "advise", "Recommend a malloc, glibc tunables, size classes and an arena size for a trace");
  for (CLI::App* c : {replay_, advise_}) {
    c->add_option("trace", request_->trace, "Trace written by `alloclab record`")->required();
    c->add_option("--malloc", r.mallocs,
                  "Comma-separated process-wide mallocs (default: glibc; advise: all), or a path "
                  "to a malloc library (.so)")
        ->expected(1);
    c->add_option("--strategies", r.replay.strategies,
                  "Comma-separated in-process resources to replay through (replay default: none; "
                  "advise: all that fit): pmr_unsync_pool, pmr_sync_pool, alloclab_multipool, "
                  "alloclab_concurrent_multipool, arena, all")
        ->expected(1);
    c->add_option("--out", r.out, "Results root directory (default: results)");
    c->add_option("--repetitions", r.repetitions,
                  "Whole replays per cell, each in a fresh process (default 5, --quick 3)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
    c->add_option("--processes", r.processes,
                  "Fresh processes per cell (default: one per repetition)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
    c->add_flag("--quick", r.quick, "Fewer replays (a smoke test)");
    c->add_flag("--skip-missing", r.skip_missing,
                "A named --malloc that is not installed is no failure");
    c->add_flag("--allow-debug", r.allow_debug, "Run an unoptimised build; stamped DEBUG");
    c->add_option("--cell-timeout", r.cell_timeout_seconds,
                  "Wall-clock limit in seconds of each replaying process (default 600)");
  }
  advise_->add_option("--results", request_->results,
                      "results.json of an earlier `alloclab replay` of this trace (default: run "
                      "the replay now, under --out)");
}

bool replay_commands::parsed() const {
  return replay_->parsed() || advise_->parsed();
}

int replay_commands::execute() const {
  const replay_command_request& q = *request_;
  for (auto* list : {&request_->run.mallocs, &request_->run.replay.strategies}) split_commas(*list);
  if (replay_->parsed()) return execute_replay(q.run, q.trace);
  int status = 0;
  fs::path results_path = q.results;
  if (results_path.empty()) {
    open_trace(q.trace);  // refuse a bad trace before replaying anything
    run_request run = q.run;
    if (run.mallocs.empty()) run.mallocs = {"all"};
    if (run.replay.strategies.empty()) run.replay.strategies = {"all"};
    run.skip_missing = true;
    status = execute_replay(run, q.trace);
    results_path = fs::path(run.out) / "latest" / "results.json";
  }
  print_or_throw(advise(q.trace, read_checked_results(results_path.string())));
  return status;
}

}  // namespace alloclab::lab
