#include "markdown.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "stats/stats.hpp"

namespace alloclab::lab {
namespace {

using json = nlohmann::json;

std::string format_ns(double ns) {
  if (ns < 10'000) return fmt::format("{:.0f} ns", ns);
  if (ns < 10'000'000) return fmt::format("{:.1f} µs", ns / 1e3);
  return fmt::format("{:.1f} ms", ns / 1e6);
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

std::string interval_text(const json& range) {
  if (!range.is_object()) return "";
  return fmt::format(" [{:.2f}–{:.2f}]", range["low"].get<double>(), range["high"].get<double>());
}

std::string speedup_text(const json& cell) {
  const json& vs = cell["vs_std"];
  if (vs.is_null() || vs["speedup_p50"].is_null()) return "";
  const json& intervals = vs.value("intervals", json::object());
  return fmt::format("{:.2f}×{} {}", vs["speedup_p50"].get<double>(),
                     interval_text(intervals.value("speedup_p50", json())),
                     vs["mark"].get<std::string>());
}

// Cells of the placement twin (glibc without the copy cliff) are shown in the placement
// section, not beside the cells the user asked for.
bool is_twin(const json& cell) {
  return cell.value("placement_twin", false);
}

std::string baseline_name(const json& w) {
  const json& b = w.value("baseline", json::object());
  return fmt::format("{} @ {}", b.value("strategy", std::string("std")),
                     b.value("malloc", std::string("glibc")));
}

bool has_baseline_timing(const json& w);

bool is_debug(const json& r) {
  return r.value("debug_build", false);
}

bool is_heap(const json& w) {
  return w.value("kind", "lab") == "heap";
}

bool is_lab(const json& w) {
  return w.value("kind", "lab") == "lab";
}

std::vector<std::string> malloc_labels(const json& r) {
  return r.at("config").value("mallocs", std::vector<std::string>{"glibc"});
}

// Cells are named by strategy alone while every cell runs on glibc, else "strategy @ malloc".
bool several_mallocs(const json& r) {
  const auto m = malloc_labels(r);
  return m.size() > 1 || (m.size() == 1 && m.front() != "glibc");
}

std::string cell_label(const json& cell, bool with_malloc) {
  const std::string strategy = cell["strategy"];
  return with_malloc ? strategy + " @ " + cell.value("malloc", std::string("glibc")) : strategy;
}

bool is_baseline(const json& w, const json& cell) {
  const json& b = w.value("baseline", json::object());
  return cell["strategy"] == b.value("strategy", std::string("std")) &&
         cell.value("malloc", std::string("glibc")) == b.value("malloc", std::string("glibc"));
}

std::string baseline_p50_text(const json& w) {
  for (const auto& c : w["cells"])
    if (is_baseline(w, c) && !c["timing"].is_null()) return format_ns(c["timing"]["p50_ns"]);
  return "-";
}

std::string format_bytes(double bytes) {
  if (bytes < 10 * 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 10 * 1024 * 1024) return fmt::format("{:.0f} KiB", bytes / 1024);
  return fmt::format("{:.1f} MiB", bytes / (1024 * 1024));
}

std::string format_number_or_dash(const json& value, const char* pattern) {
  return value.is_number() ? fmt::format(fmt::runtime(pattern), value.get<double>()) : "-";
}

// What a cell without a number shows.
std::string unmeasured_text(const json& cell) {
  const std::string status = cell["status"];
  if (status == "not_applicable") return "n/a";
  if (status == "overflowed") return "OVERFLOW";
  if (status == "not_installed") return "not installed";
  if (status == "failed") return "FAILED";
  if (status == "refused") return "REFUSED";
  return status;
}

std::string cell_state(const json& cell) {
  return cell["status"] == "ok" ? "" : unmeasured_text(cell);
}

bool has_baseline_timing(const json& w) {
  for (const auto& c : w["cells"])
    if (is_baseline(w, c) && !c["timing"].is_null()) return true;
  return false;
}

std::string baseline_malloc(const json& w) {
  return w.value("baseline", json::object()).value("malloc", std::string("glibc"));
}

// The workload's peer verdict under `malloc` (results builder: peer_verdicts), or null.
const json* peer_verdict_of(const json& w, const std::string& malloc) {
  if (!w.contains("peer_verdicts") || !w["peer_verdicts"].is_array()) return nullptr;
  const json& all = w["peer_verdicts"];  // a reference into `w`: the result points into it
  for (const auto& v : all)
    if (v["malloc"] == malloc) return &v;
  return nullptr;
}

std::string peer_verdict_badge(const json* v) {
  if (v == nullptr) return "-";
  const std::string verdict = (*v)["verdict"];
  return verdict == "met" ? "✅ met" : verdict == "missed" ? "❌ missed" : "➖ not judged";
}

bool any_peer_verdict(const json& r) {
  for (const auto& w : r["workloads"])
    if (w.value("peer_verdicts", json()).is_array() && !w["peer_verdicts"].empty()) return true;
  return false;
}

void headline_section(std::string& md, const json& r) {
  const bool with_malloc = several_mallocs(r);
  const json* first = nullptr;
  for (const auto& w : r["workloads"])
    if (is_lab(w) && first == nullptr) first = &w;
  if (first == nullptr) return;
  md += fmt::format("## Headline: speed vs {} (baseline p50 ÷ cell p50; > 1 is faster)\n\n",
                    with_malloc ? baseline_name(*first) : "std");
  if (std::none_of(r["workloads"].begin(), r["workloads"].end(), has_baseline_timing)) {
    md += fmt::format(
        "No ratios: every ratio is taken against `{}`, and this run has no timed cell of it. "
        "Add `std` to `--strategies` to get ratios.\n\n",
        baseline_name(*first));
    return;
  }
  md +=
      "Each ratio has its 95 % bootstrap interval over repetitions in brackets. Significance: "
      "Mann-Whitney U over the per-repetition medians, `**` p < 0.01, `*` p < 0.05, "
      "`n.s.` not significant, `?` too few repetitions. `n/a`: strategy does not fit the workload; "
      "`OVERFLOW`: arena spilled to the heap, number withheld; ⚠: the cell has a warning (below).";
  if (with_malloc)
    md +=
        " Cells under another malloc ran in an isolated worker that proved the allocator live; "
        "`FAILED`, "
        "`REFUSED` and `not installed` rows are explained under Warnings.";
  md += fmt::format("\n\n| workload | {} p50 |", with_malloc ? baseline_name(*first) : "std");
  std::size_t columns = 0;
  for (const auto& c : (*first)["cells"])
    if (!is_baseline(*first, c) && !is_twin(c)) {
      md += fmt::format(" {} |", cell_label(c, with_malloc));
      ++columns;
    }
  const bool verdicts = any_peer_verdict(r);
  if (verdicts) md += " alloclab vs peers |";
  md += "\n|---|---:|";
  for (std::size_t i = 0; i < columns; ++i) md += "---:|";
  if (verdicts) md += "---|";
  md += "\n";
  for (const auto& w : r["workloads"]) {
    if (!is_lab(w)) continue;
    const std::string base_p50 = baseline_p50_text(w);
    md += fmt::format("| {} | {} |", w["name"].get<std::string>(), base_p50);
    for (const auto& c : w["cells"]) {
      if (is_baseline(w, c) || is_twin(c)) continue;
      std::string text = cell_state(c);
      if (text.empty()) text = speedup_text(c);
      if (!c["warning"].is_null()) text += " ⚠";
      md += fmt::format(" {} |", text);
    }
    if (verdicts)
      md += fmt::format(" {} |", peer_verdict_badge(peer_verdict_of(w, baseline_malloc(w))));
    md += "\n";
  }
  md += "\n";
}

// Issue 9's check, per workload and malloc: the best alloclab strategy against every peer.
void peers_section(std::string& md, const json& r) {
  if (!any_peer_verdict(r)) return;
  md +=
      "## alloclab vs peers\n\n"
      "Per workload and malloc: the fastest `alloclab_*` strategy at p50 against every peer "
      "(`foonathan_*`, `boost_*`, `mimalloc_heap`, libstdc++'s `pmr_monotonic`, `pmr_unsync_pool`, "
      "`pmr_sync_pool`, `pmr_monotonic_over_pool`). A peer is beaten when its p50 is higher and "
      "the "
      "Mann-Whitney U test over the two cells' repetition medians gives p < 0.05. Ratio = peer p50 "
      "÷ best alloclab p50 (> 1: alloclab is faster).\n\n"
      "| workload | malloc | best alloclab (p50) | peers (ratio, p) | verdict | why not |\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& w : r["workloads"]) {
    if (!w.contains("peer_verdicts") || !w["peer_verdicts"].is_array()) continue;
    const json& all = w["peer_verdicts"];
    for (const auto& v : all) {
      const std::string best =
          v["best_alloclab"].is_null()
              ? "-"
              : fmt::format("{} ({})", v["best_alloclab"]["strategy"].get<std::string>(),
                            format_ns(v["best_alloclab"]["p50_ns"].get<double>()));
      std::string peers;
      for (const auto& p : v["peers"])
        peers += fmt::format("{}{} {:.2f}× (p {:.2g}){}", peers.empty() ? "" : "; ",
                             p["strategy"].get<std::string>(), p["ratio"].get<double>(),
                             p["p_value"].get<double>(), p["beaten"].get<bool>() ? "" : " ✗");
      for (const auto& u : v["unmeasured_peers"])
        peers += fmt::format("{}{} no number", peers.empty() ? "" : "; ", u.get<std::string>());
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", w["name"].get<std::string>(),
                        v["malloc"].get<std::string>(), best, peers.empty() ? "-" : peers,
                        peer_verdict_badge(&v),
                        v["reason"].is_string() ? v["reason"].get<std::string>() : "");
    }
  }
  md += "\n";
}

void warnings_section(std::string& md, const json& r) {
  if (r["warnings"].empty()) return;
  md += "## Warnings\n\n";
  for (const auto& w : r["warnings"]) md += fmt::format("- {}\n", w.get<std::string>());
  md += "\n";
}

void claims_section(std::string& md, const json& r) {
  md += "## Seed claims\n\n";
  md +=
      "Each quantitative claim from the seeds (data: `src/lab/claims/seed_claims.json`), checked "
      "against this run. "
      "Ratios are oriented so that > 1 means the candidate beats std; each has its 95 % bootstrap "
      "interval over repetitions. A claim is reproduced when the whole interval lies inside the "
      "accepted range, refuted when none of it does, and inconclusive when it straddles a bound. "
      "Runs too small to judge (fewer than 5 repetitions, or too few samples in each) say so.\n\n";
  md +=
      "| seed | claim | workload / candidate | metric | measured | verdict | detail "
      "|\n|---|---|---|---|---:|---|---|\n";
  for (const auto& c : r["claims"]) {
    const std::string where = c["workload"].get<std::string>().empty()
                                  ? "-"
                                  : fmt::format("{} / {}", c["workload"].get<std::string>(),
                                                c["candidate"].get<std::string>());
    const std::string verdict = c["verdict"];
    const std::string badge = verdict == "reproduced"                 ? "✅ reproduced"
                              : verdict == "refuted"                  ? "❌ refuted"
                              : verdict == "inconclusive"             ? "❔ inconclusive"
                              : verdict == "not measured in this run" ? "⏭ not measured in this run"
                              : verdict == "not measurable here"      ? "➖ not measurable here"
                                                                      : "⏸ " + verdict;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c["seed"].get<std::string>(),
                      c["statement"].get<std::string>(), where, c["metric"].get<std::string>(),
                      c["measured"].get<std::string>(), badge, c["detail"].get<std::string>());
  }
  md += "\n";
}

void workload_table(std::string& md, const json& w, const json& r) {
  const bool with_malloc = several_mallocs(r);
  md += fmt::format("### {}\n\n{}\n\n", w["name"].get<std::string>(),
                    w["description"].get<std::string>());
  const auto& f = w["footprint"];
  if (!f.is_null())
    md += fmt::format(
        "Per iteration (tracking pass): {} allocations, {} B requested, peak {} B live, largest "
        "request {} B, bump-arena footprint {} B → arenas get {} B. Checksum {}.",
        f["allocations"].get<std::size_t>(), f["bytes_requested"].get<std::size_t>(),
        f["peak_bytes"].get<std::size_t>(), f["largest_request"].get<std::size_t>(),
        f["monotonic_footprint"].get<std::size_t>(), f["suggested_arena_bytes"].get<std::size_t>(),
        w["checksum"].get<std::string>());
  if (w["batched"].get<bool>())
    md += fmt::format(
        " **Batched:** an iteration is shorter than 50× the clock overhead ({:.0f} ns), so each "
        "sample is the mean of {} back-to-back iterations; percentiles are of batch means.",
        r["timer"]["batch_threshold_ns"].get<double>(), w["batch_size"].get<std::size_t>());
  if (!f.is_null() && f["allocations"].get<std::size_t>() <= 2)
    md += fmt::format(
        " **Note:** only {} allocation(s) per iteration; the rest is container and copy work, so "
        "differences of a few percent here are code generation and code layout, not the allocator.",
        f["allocations"].get<std::size_t>());
  md += fmt::format(
      "\n\n| {} | p50 | p99 | jitter (p99−p50) | CV | throughput | heap allocs/it | heap B/it | "
      "fallbacks/it | faults/1k it | vs {} (p50) "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      with_malloc ? "strategy @ malloc" : "strategy", with_malloc ? baseline_name(w) : "std");
  for (const auto& c : w["cells"]) {
    if (is_twin(c)) continue;
    std::string name = cell_label(c, with_malloc);
    if (!c["warning"].is_null()) name = "⚠ " + name;
    const json& t = c["timing"];
    const json& h = c["heap"];
    const std::string allocs = h.is_null() ? "-" : format_count(h["allocations_per_iteration"]);
    const std::string bytes = h.is_null() ? "-" : format_count(h["bytes_per_iteration"]);
    const json& fb = c["upstream_fallbacks_per_iteration"];
    const std::string fallbacks = fb.is_null() ? "-" : format_count(fb.get<double>());
    if (t.is_null()) {
      const std::string status = c["status"];
      md += fmt::format("| {} | {} | | | | | {} | {} | {} | | {} |\n", name,
                        status == "not_applicable" ? "n/a"
                        : status == "overflowed"   ? "**withheld**"
                                                   : "**" + unmeasured_text(c) + "**",
                        allocs, bytes, fallbacks,
                        c["reason"].is_null() ? "" : c["reason"].get<std::string>());
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {:.2f} | {} |\n", name,
                      format_ns(t["p50_ns"]), format_ns(t["p99_ns"]), format_ns(t["jitter_ns"]),
                      100 * t["cv"].get<double>(), format_rate(t["throughput_per_s"]), allocs,
                      bytes, fallbacks, c["os"]["minor_faults_per_1000_iterations"].get<double>(),
                      is_baseline(w, c) ? std::string("baseline") : speedup_text(c));
  }
  for (const auto& c : w["cells"])
    if (!c["warning"].is_null())
      md += fmt::format("\n⚠ {}: {} (seed 000's bug 1, kept on purpose).\n",
                        cell_label(c, with_malloc), c["warning"].get<std::string>());
  md += "\n";
}

// ---- The heap study (issue 4: seeds 003 and 004) ----

const json* heap_cell(const json& w, const std::string& malloc) {
  for (const auto& c : w["cells"])
    if (c.value("malloc", std::string("glibc")) == malloc) return &c;
  return nullptr;
}

double ns_per_pair(const json& cell) {
  return cell["ns_per_pair"]["mean"].get<double>();
}

// Baseline ns/pair ÷ this cell's (> 1: cheaper than the baseline malloc); nullopt when either has no
// positive figure, or for the baseline itself.
std::optional<double> pair_speedup(const json& w, const json& cell) {
  const json* base = heap_cell(w, w["baseline"].value("malloc", std::string("glibc")));
  if (base == nullptr || base == &cell || (*base)["status"] != "ok" || cell["status"] != "ok")
    return std::nullopt;
  if (ns_per_pair(*base) <= 0 || ns_per_pair(cell) <= 0) return std::nullopt;
  return ns_per_pair(*base) / ns_per_pair(cell);
}

std::string pair_cost_text(const json& cell) {
  if (cell["status"] != "ok") return unmeasured_text(cell);
  const double ns = ns_per_pair(cell);
  return ns > 0 ? fmt::format("{:.1f}", ns) : fmt::format("{:.1f} (below noise)", ns);
}

void heap_figure_table(std::string& md, const json& r, const std::vector<const json*>& heap,
                       bool pages) {
  if (heap.empty()) return;
  md += pages ? "### Page-touching variant: mean ns per malloc+free pair (every page of every "
                "block written; NOOP loop subtracted; lower is better)\n\n"
                "Not seed 003's method: writing every page adds a first-touch fault or a cache "
                "and TLB miss per page of the large blocks, which is memory-system cost as much "
                "as the allocator's, and reorders the allocators (docs/heap-study.md).\n\n"
              : "### Seed 003's figure: mean ns per malloc+free pair (one write per block, the "
                "seed's method; NOOP loop subtracted; lower is better)\n\n";
  md +=
      "Seed 003 compared the native malloc with dlmalloc 2.8.6. Debian ships no dlmalloc, so the "
      "alternatives "
      "here are the allocators Debian does ship; `×` is the native glibc figure ÷ this one (> 1: "
      "faster than "
      "glibc).\n\n| malloc |";
  for (const json* w : heap) md += fmt::format(" {} |", (*w)["name"].get<std::string>());
  md += "\n|---|";
  for (std::size_t i = 0; i < heap.size(); ++i) md += "---:|";
  md += "\n";
  for (const std::string& m : malloc_labels(r)) {
    md += fmt::format("| {} |", m);
    for (const json* w : heap) {
      const json* c = heap_cell(*w, m);
      if (c == nullptr) {
        md += " - |";
        continue;
      }
      std::string text = pair_cost_text(*c);
      if (const auto x = pair_speedup(*w, *c)) text += fmt::format(" ({:.2f}×)", *x);
      md += fmt::format(" {} |", text);
    }
    md += "\n";
  }
  md += "\n";
}

void heap_distribution_table(std::string& md, const json& w) {
  const json& spec = w["heap_spec"];
  md += fmt::format(
      "### {}\n\n{}. {} repetitions × {} batches of {} blocks (ring of {}), seed {}; checksum {} "
      "(identical under every allocator).\n\n",
      w["name"].get<std::string>(), w["description"].get<std::string>(),
      spec["repetitions"].get<std::size_t>(), spec["iterations"].get<std::size_t>(),
      spec["batch"].get<std::size_t>(), spec["capacity"].get<std::size_t>(),
      spec["seed"].get<std::uint64_t>(), w["checksum"].get<std::string>());
  md +=
      "| malloc | ns/pair (mean) | per repetition | vs baseline (pair cost) | batch p50 | batch "
      "p90 | batch p99 | "
      "p99−p50 | NOOP batch p50 | faults/batch "
      "|\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  const json* base = heap_cell(w, w["baseline"].value("malloc", std::string("glibc")));
  for (const auto& c : w["cells"]) {
    const std::string m = c.value("malloc", std::string("glibc"));
    if (c["status"] != "ok") {
      md += fmt::format("| {} | **{}** | {} | | | | | | | |\n", m, unmeasured_text(c),
                        c["reason"].is_string() ? c["reason"].get<std::string>() : "");
      continue;
    }
    std::string reps;
    for (const auto& v : c["ns_per_pair"]["per_repetition"])
      reps += fmt::format("{}{:.0f}", reps.empty() ? "" : ", ", v.get<double>());
    const auto x = pair_speedup(w, c);
    const std::string vs = &c == base ? "baseline" : x ? fmt::format("{:.2f}×", *x) : "-";
    const json& t = c["timing"];
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} |\n", m,
                      pair_cost_text(c), reps, vs, format_ns(t["p50_ns"]), format_ns(t["p90_ns"]),
                      format_ns(t["p99_ns"]), format_ns(t["jitter_ns"]),
                      format_ns(c["ns_per_pair"]["noop_batch_p50_ns"]),
                      c["os"]["minor_faults_per_1000_iterations"].get<double>() / 1000);
  }
  md +=
      "\nBatch percentiles are raw per-batch times (100 pairs plus the loop and one write per "
      "touched page); "
      "ns/pair subtracts the NOOP run of the same loop. Faults are minor page faults per "
      "batch.\n\n";
}

void heap_memory_table(std::string& md, const std::vector<const json*>& heap) {
  md +=
      "### Memory: what each malloc keeps, and what its purge gives back\n\n"
      "Peak RSS is `VmHWM` of the cell's own worker (reset before the runs); fragmentation = peak "
      "RSS ÷ the "
      "workload's peak live bytes (net: the RSS growth over the pre-run baseline ÷ peak live "
      "bytes); "
      "*kept* = share of the RSS growth still resident after every block was freed, before and "
      "after the "
      "allocator's own purge call.\n\n"
      "| workload | malloc | peak live | peak RSS | fragmentation (net) | RSS after free | kept | "
      "RSS after "
      "purge | kept | purge call | major faults "
      "|\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n";
  auto percent = [](const json& v) {
    return v.is_number() ? fmt::format("{:.0f}%", 100 * v.get<double>()) : "-";
  };
  for (const json* w : heap)
    for (const auto& c : (*w)["cells"]) {
      const std::string m = c.value("malloc", std::string("glibc"));
      if (c["status"] != "ok" || c["memory"].is_null()) {
        md += fmt::format("| {} | {} | **{}** | | | | | | | | |\n", (*w)["name"].get<std::string>(),
                          m, unmeasured_text(c));
        continue;
      }
      const json& mem = c["memory"];
      md += fmt::format(
          "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | `{}` | {} |\n",
          (*w)["name"].get<std::string>(), m, format_bytes(mem["peak_live_bytes"].get<double>()),
          format_bytes(mem["peak_rss_bytes"].get<double>()),
          format_number_or_dash(mem["fragmentation"], "{:.2f}"),
          format_number_or_dash(mem["fragmentation_net"], "{:.2f}"),
          format_bytes(mem["rss_after_free_bytes"].get<double>()),
          percent(mem["retained_after_free"]),
          format_bytes(mem["rss_after_purge_bytes"].get<double>()),
          percent(mem["retained_after_purge"]), mem["purge"]["method"].get<std::string>(),
          mem["major_faults"].get<std::uint64_t>());
    }
  md += "\n";
}

// Retention over time, one row per malloc: the median over the heap workloads of the share of the
// RSS growth still resident at each settle time (memory.retention), with the range in brackets.
void heap_retention_table(std::string& md, const std::vector<const json*>& heap) {
  constexpr const char* figures[] = {"after_free_0ms", "after_free_100ms", "after_free_1s",
                                     "after_purge"};
  std::vector<std::string> mallocs;
  std::map<std::string, std::array<std::vector<double>, 4>> kept;
  std::map<std::string, std::string> purge_call;
  for (const json* w : heap)
    for (const auto& c : (*w)["cells"]) {
      if (c["status"] != "ok" || !c["memory"].is_object() || !c["memory"].contains("retention"))
        continue;
      const std::string m = c.value("malloc", std::string("glibc"));
      if (kept.find(m) == kept.end()) mallocs.push_back(m);
      for (std::size_t i = 0; i < 4; ++i)
        if (const json& v = c["memory"]["retention"][figures[i]]; v.is_number())
          kept[m][i].push_back(v.get<double>());
      purge_call[m] = c["memory"]["purge"]["method"].get<std::string>();
    }
  if (mallocs.empty()) return;
  md +=
      "### Retention over time: how much of the RSS growth each malloc still holds\n\n"
      "Share of the cell's RSS growth (peak − baseline) still resident right after the last "
      "free, 100 ms and 1 s after it (the worker sleeps; nothing else runs), and after the "
      "allocator's own purge call (made after the 1 s reading). Median over the heap workloads "
      "of this run, [min–max] in brackets. Seed 004's \"returns memory\" claim is judged on "
      "the 1 s figure.\n\n"
      "| malloc | workloads | 0 ms | 100 ms | 1 s | after purge | purge call |\n"
      "|---|---:|---:|---:|---:|---:|---|\n";
  for (const std::string& m : mallocs) {
    std::string row = fmt::format("| {} | {} |", m, kept[m][0].size());
    for (auto& values : kept[m]) {
      if (values.empty()) {
        row += " - |";
        continue;
      }
      std::sort(values.begin(), values.end());
      row += fmt::format(" {:.0f}% [{:.0f}–{:.0f}%] |", 100 * percentile_sorted(values, 0.5),
                         100 * values.front(), 100 * values.back());
    }
    md += row + fmt::format(" `{}` |\n", purge_call[m]);
  }
  md += "\n";
}

void heap_section(std::string& md, const json& r) {
  std::vector<const json*> heap;
  for (const auto& w : r["workloads"])
    if (is_heap(w)) heap.push_back(&w);
  if (heap.empty()) return;
  md +=
      "## Heap study: the process-wide malloc (seeds 003 and 004)\n\n"
      "Each cell ran in its own worker process under the allocator's `LD_PRELOAD` / environment; "
      "the worker "
      "proved which allocator owns `malloc` and `free` (and an allocator-specific symbol) before "
      "measuring. "
      "These workloads are malloc-level kernels: the in-process strategy axis does not apply "
      "(strategy "
      "`malloc`).\n\n";
  std::vector<const json*> seed_method, page_touching;
  for (const json* w : heap)
    ((*w)["heap_spec"].value("touch", std::string("once")) == "every_page" ? page_touching
                                                                           : seed_method)
        .push_back(w);
  heap_figure_table(md, r, seed_method, false);
  heap_figure_table(md, r, page_touching, true);
  for (const json* w : heap) heap_distribution_table(md, *w);
  heap_memory_table(md, heap);
  heap_retention_table(md, heap);
}

// Seed 004's batch table: std vs PMR (monotonic over a sync pool) vs mimalloc on request_mix.
// ---- The replay frame (issue 10): a recorded trace under each malloc and resource ----

std::string spread_text(const json& spread) {
  if (!spread.is_object()) return "-";
  return format_bytes(spread["median"].get<double>());
}

std::string replay_cell_label(const json& cell) {
  const std::string strategy = cell["strategy"];
  const std::string malloc = cell["malloc"];
  return strategy == "malloc" ? malloc : strategy + " (resource, under " + malloc + ")";
}

void replay_table(std::string& md, const json& w) {
  const json& t = w["trace"];
  md += fmt::format("### Replay of `{}`\n\n", w["name"].get<std::string>());
  md += fmt::format(
      "Trace {} · {} thread(s) · monotonic footprint {} · arena for the arena resource {}. "
      "Ratios: {} ns per call ÷ the cell's, 95 % bootstrap interval over whole replays in fresh "
      "processes. Peak RSS growth excludes the replay engine's own block table; ideal = the "
      "trace's peak live bytes; fragmentation = growth ÷ ideal; resident after the last free and "
      "after the allocator's purge are above the process's baseline.\n\n",
      t["path"].get<std::string>(), t["threads"].get<std::size_t>(),
      format_bytes(t["monotonic_footprint"].get<double>()),
      format_bytes(t["arena_bytes"].get<double>()), baseline_name(w));
  md +=
      "| malloc / resource | ns per call | vs baseline | total (ms) | peak RSS growth | ideal "
      "RSS | fragmentation | after free | after purge | calls (skipped) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& c : w["cells"]) {
    const json& rp = c["replay"];
    if (c["status"] != "ok" || rp.is_null()) {
      md += fmt::format("| {} | {} | | | | | | | | |\n", replay_cell_label(c), unmeasured_text(c));
      continue;
    }
    const json& m = rp["memory"];
    const std::string ratio = is_baseline(w, c) ? "baseline" : speedup_text(c);
    md += fmt::format(
        "| {} | {:.1f} | {} | {:.1f} | {} | {} | {} | {} | {} | {} ({}) |\n", replay_cell_label(c),
        rp["ns_per_call"]["median"].get<double>(), ratio, rp["total_ms"]["median"].get<double>(),
        spread_text(m["peak_rss_growth_bytes"]), format_bytes(m["ideal_rss_bytes"].get<double>()),
        format_number_or_dash(m["fragmentation"], "{:.2f}"), spread_text(m["rss_after_free_bytes"]),
        spread_text(m["rss_after_purge_bytes"]), rp["calls"].get<std::uint64_t>(),
        rp["skipped_calls"].get<std::uint64_t>());
  }
  md += "\n";
}

void replay_section(std::string& md, const json& r) {
  bool any = false;
  for (const auto& w : r["workloads"])
    if (w.value("kind", "") == "trace") {
      if (!any) md += "## Replay of recorded traces\n\n";
      any = true;
      replay_table(md, w);
    }
}

void seed004_section(std::string& md, const json& r) {
  const json* w = nullptr;
  for (const auto& x : r["workloads"])
    if (x["name"] == "request_mix") w = &x;
  if (w == nullptr) return;
  struct seed_row {
    const char* strategy;
    const char* malloc;
    const char* variant;
    double p50_us, p99_us, throughput;
  };
  const seed_row seed[] = {
      {"std", "glibc", "std::allocator", 8.66, 15.29, 128924},
      {"pmr_monotonic_over_pool", "glibc", "std::pmr (mono + sync_pool)", 4.08, 5.61, 239090},
      {"std", "mimalloc", "mimalloc", 9.77, 17.20, 101821}};
  std::string rows;
  for (const auto& s : seed) {
    const json* cell = nullptr;
    for (const auto& c : (*w)["cells"])
      if (c["strategy"] == s.strategy && c.value("malloc", std::string("glibc")) == s.malloc)
        cell = &c;
    std::string measured = "| not in this run | | | |";
    if (cell != nullptr && !(*cell)["timing"].is_null()) {
      const json& t = (*cell)["timing"];
      measured =
          fmt::format("| {} | {} | {} | {} |", format_ns(t["p50_ns"]), format_ns(t["p99_ns"]),
                      format_rate(t["throughput_per_s"]),
                      is_baseline(*w, *cell) ? std::string("baseline") : speedup_text(*cell));
    } else if (cell != nullptr) {
      measured = fmt::format("| **{}** | | | |", unmeasured_text(*cell));
    }
    rows += fmt::format("| {} | {} @ {} {} {:.2f} µs | {:.2f} µs | {:.0f}/s |\n", s.variant,
                        s.strategy, s.malloc, measured, s.p50_us, s.p99_us, s.throughput);
  }
  md +=
      "## Seed 004's batch table (request_mix)\n\n"
      "Seed 004 (course demo-06, batch mode, 200 iterations per invocation) against this run. Its "
      "workload is "
      "not published; `request_mix` is our request-scoped stand-in, so compare ratios, not "
      "microseconds. To "
      "fill every row: `alloclab run --workloads request_mix --strategies "
      "std,pmr_monotonic_over_pool "
      "--malloc glibc,mimalloc`.\n\n"
      "| seed 004 variant | here | p50 | p99 | throughput | vs baseline (p50) | seed p50 | seed "
      "p99 | seed "
      "throughput |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  md += rows + "\n";
}

// ---- The memory frame (issue 12): budget compliance and huge-page coverage ----

const json* memory_workload(const json& r, const char* name) {
  for (const auto& w : r["workloads"])
    if (w.value("kind", "") == "memory" && w["name"] == name) return &w;
  return nullptr;
}

std::string throughput_vs_first(const json& frame) {
  const json& vs = frame["vs_first_strategy"];
  if (vs.is_null() || vs["throughput_ratio"].is_null()) return "baseline";
  const json& e = vs["throughput_ratio"];
  return fmt::format("{:.2f}×{}", e["value"].get<double>(), interval_text(e["interval"]));
}

void budget_events(std::string& md, const json& cell) {
  const json& b = cell["memory_frame"]["budget"];
  const json& events = b["events"];
  md += fmt::format("\n{} @ {}: {} events in process 1", cell["strategy"].get<std::string>(),
                    cell["malloc"].get<std::string>(), events.size());
  const std::size_t shown = std::min<std::size_t>(events.size(), 8);
  md += shown < events.size() ? fmt::format(" (first {})", shown) : std::string();
  md += shown == 0 ? ".\n" : ":\n\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const json& e = events[i];
    const bool purge = e["kind"] == "service_purge";
    md += fmt::format(
        "- {:.0f} ms: {} at {:.0f} % of the budget{}\n", e["t_ms"].get<double>(),
        purge ? std::string("service purge (quiescent point)")
              : fmt::format("{} → {}", e["from"].get<std::string>(), e["to"].get<std::string>()),
        100 * e["fraction"].get<double>(),
        purge ? fmt::format(", usage after {}",
                            format_bytes(e["usage_after_bytes"].is_null()
                                             ? 0.0
                                             : e["usage_after_bytes"].get<double>()))
              : (e["purged"].get<bool>() ? ", purged" : ""));
  }
}

void budget_table(std::string& md, const json& w) {
  const json& spec = w["memory_spec"];
  md += fmt::format(
      "### Budget: `budget_bursts` against {} ({})\n\n"
      "Peak usage is the highest 10 ms sample of what the budget reads (RSS, or the cgroup's "
      "usage when the budget is the cgroup's limit). Over soft: share of the run at or above "
      "90 % of the budget (median over repetitions). Throughput: this strategy's requests per "
      "second ÷ `no_watcher`'s under the same malloc, 95 % bootstrap interval over repetitions "
      "(< 1: trimming costs).\n\n"
      "| malloc | strategy | peak usage | peak ÷ budget | over soft | throughput vs no_watcher | "
      "crossings | purges (watcher / service) |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
      format_bytes(spec.value("budget_bytes", 0.0)), spec.value("budget_source", std::string()));
  std::vector<const json*> trimmed;
  for (const auto& c : w["cells"]) {
    const std::string state = cell_state(c);
    if (!state.empty() || c["memory_frame"].is_null()) {
      md += fmt::format("| {} | {} | {} | | | | | |\n", c["malloc"].get<std::string>(),
                        c["strategy"].get<std::string>(), state.empty() ? "-" : state);
      continue;
    }
    const json& b = c["memory_frame"]["budget"];
    if (b["watcher"].get<bool>()) trimmed.push_back(&c);
    md +=
        fmt::format("| {} | {} | {} | {:.2f} | {:.0f} % | {} | {} | {} / {} |\n",
                    c["malloc"].get<std::string>(), c["strategy"].get<std::string>(),
                    format_bytes(b["peak_usage_bytes"].get<double>()),
                    b["peak_fraction"].get<double>(), 100 * b["time_over_soft_share"].get<double>(),
                    throughput_vs_first(c["memory_frame"]), b["crossings"].get<std::size_t>(),
                    b["watcher_purges"].get<std::size_t>(), b["service_purges"].get<std::size_t>());
  }
  if (!trimmed.empty()) md += "\nWhat the watcher did, and when (ms since the worker started):\n";
  for (const json* c : trimmed) budget_events(md, *c);
  md += "\n";
}

void huge_page_table(std::string& md, const json& w) {
  md += fmt::format(
      "### Huge pages: `huge_table` ({} table, random read-modify-writes)\n\n"
      "Time per batch of 4096 accesses at p50; speed = `plain_pages` mean ÷ this cell's, 95 % "
      "interval over repetitions. Backed: the table's `AnonHugePages` in `/proc/self/smaps` "
      "after filling it (lowest over the processes).\n\n"
      "| malloc | strategy | backing | backed by huge pages | p50 / 4096 accesses | speed vs "
      "plain_pages | fill faults | dTLB load misses |\n|---|---|---|---:|---:|---:|---:|---|\n",
      format_bytes(w["memory_spec"].value("table_bytes", 0.0)));
  for (const auto& c : w["cells"]) {
    const std::string state = cell_state(c);
    if (!state.empty() || c["memory_frame"].is_null()) {
      md += fmt::format("| {} | {} | {} | | | | | |\n", c["malloc"].get<std::string>(),
                        c["strategy"].get<std::string>(), state.empty() ? "-" : state);
      continue;
    }
    const json& h = c["memory_frame"]["huge_pages"];
    md += fmt::format(
        "| {} | {} | {} | {:.0f} % | {} | {} | {} | {} |\n", c["malloc"].get<std::string>(),
        c["strategy"].get<std::string>(), h["backing"].get<std::string>(),
        100 * h["huge_backed_share_lowest"].get<double>(), format_ns(c["timing"]["p50_ns"]),
        throughput_vs_first(c["memory_frame"]), h["fill_minor_faults"].get<std::uint64_t>(),
        h["dtlb_load_misses"].is_null() ? h["dtlb_load_misses_note"].get<std::string>()
                                        : format_count(h["dtlb_load_misses"].get<double>()));
  }
  md += "\n";
}

// ---- The serve frame (issue 11, seed 004's serve mode) ----

std::string ms_or_dash(const json& value) {
  return format_number_or_dash(value, "{:.2f}");
}

std::string estimate_or_dash(const json& e) {
  if (!e.is_object()) return "-";
  return fmt::format("{:.2f}×{}", e["value"].get<double>(), interval_text(e["interval"]));
}

std::string percent_or_dash(const json& share) {
  return share.is_number() ? fmt::format("{:.1f} %", 100 * share.get<double>()) : "-";
}

std::string serve_variant(const json& cell) {
  return fmt::format("{} @ {}", cell["strategy"].get<std::string>(),
                     cell["malloc"].get<std::string>());
}

// Batch beside serve for each variant, with Amdahl's prediction of the serve ratio.
void serve_amdahl_table(std::string& md, const json& w) {
  md += fmt::format(
      "### {}: batch beside serve\n\n"
      "Ratios against {} @ {}, > 1 favours the variant, with 95 % intervals over repetitions. "
      "*Workload share* is a server's time inside the workload (allocator included) divided by "
      "its CPU time per request, during the hey run. *Amdahl* predicts the serve throughput "
      "ratio from the batch speedup s and the baseline's share f: 1 / ((1 − f) + f / s). "
      "*Allocator's part* is f × (1 − 1 / s): the share of the baseline's request time the "
      "variant's allocation strategy takes away; a 2× batch win on a workload that is 5 % of a "
      "request removes 2.5 % of it. "
      "*Served workload ratio* is the same workload timed inside the server, one iteration per "
      "request from a reset arena.\n\n"
      "| variant | batch p50 | batch speedup | served workload time | served workload ratio | "
      "workload share of server CPU | allocator's part of request time | Amdahl: predicted serve "
      "ratio | measured serve ratio (hey req/s) | measured (wrk req/s) "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      w["name"].get<std::string>(), w["baseline"]["strategy"].get<std::string>(),
      w["baseline"]["malloc"].get<std::string>());
  for (const auto& c : w["cells"]) {
    if (c["status"] != "ok") {
      md += fmt::format("| {} | **{}** | | | | | | | | |\n", serve_variant(c), unmeasured_text(c));
      continue;
    }
    const json& b = c["batch"];
    const json& vs = c["vs_std"];
    const bool base = vs.is_null();
    const json none;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", serve_variant(c),
                      b.is_object() ? format_ns(b["p50_ns"].get<double>()) : "not in this run",
                      base            ? "baseline"
                      : b.is_object() ? estimate_or_dash(b["speedup_p50"])
                                      : "-",
                      format_number_or_dash(c["hey"]["server"]["workload_mean_us"], "{:.2f} µs"),
                      base ? "baseline" : estimate_or_dash(vs["workload_time_ratio"]),
                      percent_or_dash(c["hey"]["server"]["share_of_cpu"]),
                      base || !b.is_object() ? "-" : percent_or_dash(b["allocator_share_removed"]),
                      base            ? "-"
                      : b.is_object() ? format_number_or_dash(b["predicted_serve_ratio"], "{:.3f}×")
                                      : "-",
                      base ? "baseline" : estimate_or_dash(vs["throughput_ratio_hey"]),
                      base ? "baseline" : estimate_or_dash(vs["throughput_ratio_wrk"]));
  }
  md += "\n";
}

void serve_generator_table(std::string& md, const json& w, unsigned connections) {
  md += fmt::format(
      "### {}: served, per generator (closed loop)\n\n"
      "Medians over repetitions; latency in ms at the client (queueing included: a closed loop "
      "keeps {} requests in flight). hey prints 0.1 ms steps and no p99.9.\n\n"
      "| variant | generator | req/s | requests | errors | p50 | p90 | p99 | p99.9 | mean | "
      "server CPU per request | req/s vs baseline | p50 vs baseline |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      w["name"].get<std::string>(), connections);
  for (const auto& c : w["cells"]) {
    if (c["status"] != "ok") continue;
    for (const char* g : {"hey", "wrk"}) {
      const json& s = c[g];
      const json& vs = c["vs_std"];
      const std::string suffix = std::string("_") + g;
      md +=
          fmt::format("| {} | {} | {:.0f} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                      serve_variant(c), g, s["throughput_rps"].get<double>(),
                      s["requests"].get<std::uint64_t>(), s["errors"].get<std::uint64_t>(),
                      ms_or_dash(s["p50_ms"]), ms_or_dash(s["p90_ms"]), ms_or_dash(s["p99_ms"]),
                      ms_or_dash(s["p999_ms"]), ms_or_dash(s["mean_ms"]),
                      format_number_or_dash(s["server"]["cpu_us_per_request"], "{:.1f} µs"),
                      vs.is_null() ? "baseline" : estimate_or_dash(vs["throughput_ratio" + suffix]),
                      vs.is_null() ? "baseline" : estimate_or_dash(vs["p50_ratio" + suffix]));
    }
  }
  md += "\n";
}

void memory_section(std::string& md, const json& r) {
  const json* budget = memory_workload(r, "budget_bursts");
  const json* table = memory_workload(r, "huge_table");
  if (budget == nullptr && table == nullptr) return;
  md += "## Memory frame\n\n";
  if (budget != nullptr) budget_table(md, *budget);
  if (table != nullptr) huge_page_table(md, *table);
}

void serve_ladder_table(std::string& md, const json& w) {
  md += fmt::format(
      "### {}: open loop, constant rate\n\n"
      "Each request is due at t0 + i / rate; its latency runs from that due time (coordinated "
      "omission corrected). Rates are fractions of the closed-loop saturation (the lower of hey's "
      "and wrk's req/s) of each server. Medians over repetitions.\n\n"
      "| variant | target req/s | achieved req/s | errors | p50 ms | p90 ms | p99 ms | p99.9 ms | "
      "workload share of latency |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      w["name"].get<std::string>());
  for (const auto& c : w["cells"]) {
    if (c["status"] != "ok") continue;
    for (const auto& step : c["ladder"])
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", serve_variant(c),
                        format_number_or_dash(step["target_rate_rps"], "{:.0f}"),
                        format_number_or_dash(step["throughput_rps"], "{:.0f}"),
                        step["errors"].get<std::uint64_t>(), ms_or_dash(step["p50_ms"]),
                        ms_or_dash(step["p90_ms"]), ms_or_dash(step["p99_ms"]),
                        ms_or_dash(step["p999_ms"]),
                        percent_or_dash(step["server"]["share_of_latency"]));
  }
  md += "\n";
}

// Seed 004's serve table (hey -z 50s -c 50): std vs PMR vs mimalloc, against this run's hey.
void seed004_serve_table(std::string& md, const json& w) {
  struct seed_row {
    const char* strategy;
    const char* malloc;
    const char* variant;
    double p50_ms, p99_ms, throughput;
  };
  const seed_row seed[] = {
      {"std", "glibc", "std::allocator", 0.20, 1.7, 29033},
      {"pmr_monotonic_over_pool", "glibc", "std::pmr (mono + sync_pool)", 0.20, 1.8, 28073},
      {"std", "mimalloc", "mimalloc", 0.30, 1.9, 27365}};
  md +=
      "### Seed 004's serve table against this run (hey)\n\n"
      "The seed ran `hey -z 50s -c 50` on another machine; compare the ratios, not the "
      "absolute figures (`--serve-duration 50` reproduces its duration).\n\n"
      "| seed 004 variant | here | p50 ms | p99 ms | req/s | req/s vs baseline | seed p50 ms | "
      "seed p99 ms | seed req/s | seed req/s vs std |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& s : seed) {
    const json* cell = nullptr;
    for (const auto& c : w["cells"])
      if (c["strategy"] == s.strategy && c["malloc"] == s.malloc) cell = &c;
    std::string here = "| not in this run | | | |";
    if (cell != nullptr && (*cell)["status"] == "ok") {
      const json& h = (*cell)["hey"];
      here = fmt::format("| {} | {} | {:.0f} | {} |", ms_or_dash(h["p50_ms"]),
                         ms_or_dash(h["p99_ms"]), h["throughput_rps"].get<double>(),
                         (*cell)["vs_std"].is_null()
                             ? std::string("baseline")
                             : estimate_or_dash((*cell)["vs_std"]["throughput_ratio_hey"]));
    } else if (cell != nullptr) {
      here = fmt::format("| **{}** | | | |", unmeasured_text(*cell));
    }
    md += fmt::format("| {} | {} @ {} {} {:.2f} | {:.1f} | {:.0f} | {:.3f}× |\n", s.variant,
                      s.strategy, s.malloc, here, s.p50_ms, s.p99_ms, s.throughput,
                      s.throughput / seed[0].throughput);
  }
  md += "\n";
}

void serve_failures(std::string& md, const json& w) {
  for (const auto& c : w["cells"]) {
    if (c["status"] == "ok") continue;
    std::string tail = c["worker"].is_object() ? c["worker"].value("stderr_tail", "") : "";
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
    md += fmt::format("- **served {} / {}** ({}): {}; server: {}\n", w["name"].get<std::string>(),
                      serve_variant(c), c["status"].get<std::string>(),
                      c["reason"].is_string() ? c["reason"].get<std::string>() : "",
                      c["worker"].is_object() ? c["worker"].value("exit", "-") : "-");
    if (!tail.empty()) md += fmt::format("\n  ```\n  {}\n  ```\n", tail);
  }
}

void serve_section(std::string& md, const json& r) {
  const json& serve = r.value("serve", json());
  if (!serve.is_object()) return;
  md += fmt::format(
      "## Batch and serve (seed 004's two frames)\n\n"
      "Served: one `alloclab serve` process per variant and repetition ({} each), one iteration "
      "per `GET /run`; hey and wrk with {} connections for {} s each, then the open-loop ladder. "
      "{}.\n\n",
      serve["repetitions"].get<std::size_t>(), serve["connections"].get<unsigned>(),
      serve["duration_s"].get<double>(),
      serve["workloads"].empty() || serve["workloads"][0]["cells"].empty() ||
              !serve["workloads"][0]["cells"][0]["server"].is_object()
          ? std::string("Pinning: see each cell")
          : serve["workloads"][0]["cells"][0]["server"]["pinning"].get<std::string>());
  std::string failures;
  for (const auto& w : serve["workloads"]) {
    serve_amdahl_table(md, w);
    serve_generator_table(md, w, serve["connections"].get<unsigned>());
    serve_ladder_table(md, w);
    if (w["name"] == "request_mix") seed004_serve_table(md, w);
    serve_failures(failures, w);
  }
  if (!failures.empty())
    md += "### Failed servers\n\nThe other variants still ran.\n\n" + failures + "\n";
}

// Isolated workers that crashed, hung or refused: what they said.
void failures_section(std::string& md, const json& r) {
  std::string rows;
  for (const auto& w : r["workloads"])
    for (const auto& c : w["cells"]) {
      if (c.value("worker", json()).is_null() || c["status"] == "ok") continue;
      std::string tail = c["worker"].value("stderr_tail", std::string());
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
      if (tail.size() > 600) tail = "…" + tail.substr(tail.size() - 600);
      rows += fmt::format("- **{} / {}** ({}): {}; worker: {}\n", w["name"].get<std::string>(),
                          cell_label(c, true), c["status"].get<std::string>(),
                          c["reason"].is_string() ? c["reason"].get<std::string>() : "",
                          c["worker"]["exit"].get<std::string>());
      if (!tail.empty()) rows += fmt::format("\n  ```\n  {}\n  ```\n", tail);
    }
  if (rows.empty()) return;
  md +=
      "## Failed and refused cells\n\nEvery other result was kept. The tail of each worker's "
      "stderr:\n\n" +
      rows + "\n";
}

void method_section(std::string& md, const json& r) {
  const auto& t = r["timer"];
  const auto& cfg = r["config"];
  md += "## Method\n\n";
  md += fmt::format(
      "- Timer: {} (clocksource {}), overhead {:.0f} ns per reading pair, resolution {:.0f} ns; "
      "iterations faster than {:.0f} ns are timed in fixed batches.\n",
      t["clock"].get<std::string>(),
      r["environment"]["clocksource"].is_null()
          ? "unknown"
          : r["environment"]["clocksource"].get<std::string>(),
      t["overhead_ns"].get<double>(), t["resolution_ns"].get<double>(),
      t["batch_threshold_ns"].get<double>());
  bool any_lab = false, any_heap = false;
  for (const auto& w : r["workloads"]) {
    any_lab = any_lab || is_lab(w);
    any_heap = any_heap || is_heap(w);
  }
  if (any_heap) {
    const json& heap = cfg["heap"];
    md += fmt::format(
        "- Heap study: every (workload, malloc) cell runs alone in fresh worker processes ({} "
        "repetitions × {} batches, shared out over up to {} processes; each repetition a NOOP run "
        "then a malloc run of the same loop); a process's first repetition pays the page faults, "
        "later ones reuse what the allocator kept. Memory figures are medians over the "
        "processes. Time limit per process {:.0f} s.\n",
        heap.is_object() ? heap["repetitions"].get<std::size_t>() : 0,
        heap.is_object() ? heap["iterations"].get<std::size_t>() : 0,
        cfg.value("processes", std::size_t{1}), cfg.value("cell_timeout_seconds", 0.0));
    md +=
        "- Memory: `VmHWM` reset through `/proc/self/clear_refs` before the runs, `VmRSS` after "
        "every block "
        "was freed and again after the allocator's purge call (found with `dlsym` at run time); "
        "faults from "
        "`getrusage`. glibc_trim sets `MALLOC_TRIM_THRESHOLD_`, which also switches off glibc's "
        "dynamic mmap "
        "threshold.\n";
  }
  if (!any_lab) {
    md += fmt::format(
        "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n\n",
        r["significance"]["test"].get<std::string>(), r["significance"]["alpha"].get<double>(),
        r["significance"]["smallest_possible_p"].get<double>());
    return;
  }
  md += fmt::format(
      "- {} repetitions × {} timed samples per cell, after warm-up, spread over {} process(es) "
      "per cell. Every cell (workload × strategy × malloc) runs alone in fresh processes that "
      "prove their malloc live before measuring, so no heap history leaks in from another cell; "
      "the cells' processes run one at a time in rounds, each round a freshly shuffled order "
      "(seed {}), so machine drift hits all cells alike. Each workload's batch size and "
      "reference checksum come from a calibration process of its own, with std, whatever else "
      "the run measures. Ratios are against the baseline cell (std under the run's first "
      "malloc).\n",
      cfg["repetitions"].get<std::size_t>(), cfg["samples_per_repetition"].get<std::size_t>(),
      cfg.value("processes", std::size_t{1}), cfg["seed"].get<std::uint64_t>());
  md += fmt::format(
      "- Heap allocations come from a separate untimed pass of {} iterations with the global "
      "operator new counted; fallbacks are upstream allocations of the strategy's own buffer.\n",
      cfg["counted_iterations"].get<std::size_t>());
  md +=
      "- Arena and monotonic buffers are sized by a tracking pass (alloclab::tracking_resource "
      "monotonic "
      "footprint + 25 %); an arena that still touches the heap has its numbers withheld.\n";
  md += fmt::format(
      "- Build: {} with flags `{}` (the lab aligns loops to 64 bytes: with default alignment the "
      "same push_back loop ran 9 % apart under two allocators whose inner loops are identical).\n",
      r["environment"]["compiler"].get<std::string>(),
      r["environment"]["cxx_flags"].get<std::string>());
  md +=
      "- Every iteration returns a checksum of what it built; all strategies must agree or the run "
      "fails.\n";
  md += fmt::format(
      "- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n",
      r["significance"]["test"].get<std::string>(), r["significance"]["alpha"].get<double>(),
      r["significance"]["smallest_possible_p"].get<double>());
  md +=
      "- Jitter = p99 − p50 in ns is the determinism figure (seed 000, bug 3); CV is secondary. "
      "Faults: minor "
      "page faults during the timed passes.\n\n";
}

void environment_section(std::string& md, const json& r) {
  md += "## Environment\n\n| key | value |\n|---|---|\n";
  for (const auto& [key, value] : r["environment"].items()) {
    if (key == "placement") {  // the probe's figures are in results.json; its summary here
      md += fmt::format("| memmove placement probe | {} |\n",
                        value.is_object() ? value.value("summary", std::string("-")) : "-");
      continue;
    }
    md += fmt::format("| {} | {} |\n", key,
                      value.is_string() ? value.get<std::string>() : value.dump());
  }
  md += fmt::format("| command | `{}` |\n| created (UTC) | {} |\n| duration | {:.1f} s |\n\n",
                    r["command"].get<std::string>(), r["created_utc"].get<std::string>(),
                    r["duration_seconds"].get<double>());
}

std::string estimate_text(const json& e) {
  if (!e.is_object()) return "-";
  return fmt::format("{:.2f}×{}", e["value"].get<double>(), interval_text(e["interval"]));
}

// Which ratios measure buffer placement and copying rather than the allocator.
void placement_section(std::string& md, const json& r) {
  std::string body;
  for (const auto& w : r["workloads"]) {
    const json& p = w.value("placement", json());
    if (!p.is_object()) continue;
    const std::string name = w["name"];
    const std::vector<std::string> driven = p["placement_driven"];
    body += fmt::format("| {} | {} |", name, estimate_text(p["baseline_copy_cliff_cost"]));
    std::string rows;
    for (const auto& s : p["strategies"])
      if (s["placement_driven"].get<bool>())
        rows +=
            fmt::format("{}{}: {} → {}", rows.empty() ? "" : "; ", s["strategy"].get<std::string>(),
                        estimate_text(s["with_cliff"]), estimate_text(s["without_cliff"]));
    body += fmt::format(" {} |\n", rows.empty() ? "none" : rows);
  }
  if (body.empty()) return;
  md += fmt::format(
      "## Placement: which ratios measure copying, not the allocator\n\n"
      "Every glibc cell was measured a second time under `{}`: the same malloc with memmove's "
      "`rep movsb` threshold raised, so copies no longer depend on the relative alignment of "
      "source and destination. On this machine (see the environment's placement probe) a large "
      "memmove is many times slower at some relative offsets, so a growing `std::vector` pays "
      "for where malloc happened to put its old and new buffers. A ratio that changes when only "
      "the copy cliff changes is driven by placement: the allocator did not get faster, the "
      "copies did. The second column is how much faster std itself runs without the cliff.\n\n"
      "| workload | std: cliff p50 ÷ no-cliff p50 | placement-driven ratios: with cliff → without "
      "|\n"
      "|---|---:|---|\n{}\n",
      r["config"].value("placement_twin", std::string("glibc_nocliff")), body);
}

void frames_section(std::string& md, const json& r) {
  const json& frames = r.value("frames", json::object());
  if (frames.empty()) return;
  md += "## What the numbers include\n\n";
  for (const auto& [name, text] : frames.items())
    md += fmt::format("- **{} frame**: {}.\n", name, text.get<std::string>());
  md += "\n";
}

}  // namespace

std::string render_report(const json& r) {
  std::string md;
  const bool debug = is_debug(r);
  md += debug ? "# DEBUG — alloclab report (unoptimised build: numbers are meaningless)\n\n"
              : "# alloclab report\n\n";
  if (r.value("smoke_test", false))
    md +=
        "> **SMOKE TEST (`--quick`)**: small samples, to check that the lab works. Do not quote "
        "these numbers.\n\n";
  md += fmt::format("Run {} · {} workloads × {} strategies × {} malloc(s) · revision {}\n\n",
                    r["created_utc"].get<std::string>(), r["config"]["workloads"].size(),
                    r["config"]["strategies"].size(), malloc_labels(r).size(),
                    r["environment"]["git_revision"].is_null()
                        ? "unknown"
                        : r["environment"]["git_revision"].get<std::string>());
  headline_section(md, r);
  peers_section(md, r);
  frames_section(md, r);
  placement_section(md, r);
  warnings_section(md, r);
  claims_section(md, r);
  heap_section(md, r);
  replay_section(md, r);
  seed004_section(md, r);
  memory_section(md, r);
  serve_section(md, r);
  failures_section(md, r);
  bool any_lab = false;
  for (const auto& w : r["workloads"]) any_lab = any_lab || is_lab(w);
  if (any_lab) md += "## Workloads\n\n";
  for (const auto& w : r["workloads"])
    if (is_lab(w)) workload_table(md, w, r);
  method_section(md, r);
  environment_section(md, r);
  if (debug) md += "**DEBUG build — do not publish these numbers.**\n";
  return md;
}

std::string render_headline(const json& r) {
  const bool with_malloc = several_mallocs(r);
  std::string out = is_debug(r) ? "DEBUG BUILD — numbers are meaningless\n" : "";
  if (r.value("smoke_test", false)) out += "SMOKE TEST (--quick) — do not quote these numbers\n";
  const json* first = nullptr;
  std::size_t name_width = 8;
  for (const auto& w : r["workloads"]) {
    name_width = std::max(name_width, w["name"].get<std::string>().size());
    if (is_lab(w) && first == nullptr) first = &w;
  }
  if (first != nullptr) {
    std::vector<std::string> columns;
    for (const auto& c : (*first)["cells"])
      if (!is_baseline(*first, c) && !is_twin(c)) columns.push_back(cell_label(c, with_malloc));
    out += fmt::format(
        "speed vs {} at p50 (baseline p50 / cell p50, >1 = faster; ** p<0.01, * p<0.05, ! = the "
        "cell has a warning, listed below; intervals in report.md)\n",
        with_malloc ? baseline_name(*first) : "std");
    if (std::none_of(r["workloads"].begin(), r["workloads"].end(), has_baseline_timing))
      out += fmt::format("no ratios: this run has no timed {} cell; add std to --strategies\n",
                         baseline_name(*first));
    out +=
        fmt::format("{:<{}}  {:>9}", "workload", name_width, with_malloc ? "base p50" : "std p50");
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += fmt::format("  {:>9}", fmt::format("[{}]", i + 1));
    out += "\n";
    for (const auto& w : r["workloads"]) {
      if (!is_lab(w)) continue;
      const std::string base_p50 = baseline_p50_text(w);
      out += fmt::format("{:<{}}  {:>9}", w["name"].get<std::string>(), name_width, base_p50);
      for (const auto& c : w["cells"]) {
        if (is_baseline(w, c) || is_twin(c)) continue;
        std::string text = cell_state(c);
        if (text.empty() && !c["vs_std"].is_null() && !c["vs_std"]["speedup_p50"].is_null()) {
          const std::string mark = c["vs_std"]["mark"];
          text = fmt::format("{:.2f}{}", c["vs_std"]["speedup_p50"].get<double>(),
                             mark == "n.s." ? "" : mark);
        }
        if (!c["warning"].is_null()) text += "!";
        out += fmt::format("  {:>9}", text);
      }
      out += "\n";
    }
    for (std::size_t i = 0; i < columns.size(); ++i)
      out += fmt::format("[{}] {}  ", i + 1, columns[i]);
    out += "\n";
  }
  std::vector<const json*> heap;
  for (const auto& w : r["workloads"])
    if (is_heap(w)) heap.push_back(&w);
  if (!heap.empty()) {
    out +=
        "heap study: mean ns per malloc+free pair, NOOP loop subtracted (lower is better; x = "
        "glibc / this)\n";
    out += fmt::format("{:<14}", "malloc");
    for (const json* w : heap) out += fmt::format("  {:>20}", (*w)["name"].get<std::string>());
    out += "\n";
    for (const std::string& m : malloc_labels(r)) {
      out += fmt::format("{:<14}", m);
      for (const json* w : heap) {
        const json* c = heap_cell(*w, m);
        std::string text = c == nullptr             ? "-"
                           : (*c)["status"] == "ok" ? fmt::format("{:.1f}", ns_per_pair(*c))
                                                    : unmeasured_text(*c);
        if (c != nullptr)
          if (const auto x = pair_speedup(*w, *c)) text += fmt::format(" ({:.2f}x)", *x);
        out += fmt::format("  {:>20}", text);
      }
      out += "\n";
    }
  }
  for (const auto& w : r["workloads"]) {
    if (w.value("kind", "") != "trace") continue;
    out += fmt::format("replay of {}: ns per call (x = {} / this, 95 % interval)\n",
                       w["name"].get<std::string>(), baseline_name(w));
    for (const auto& c : w["cells"]) {
      const std::string what =
          c["status"] == "ok" && !c["replay"].is_null()
              ? fmt::format("{:.1f} ns  {}", c["replay"]["ns_per_call"]["median"].get<double>(),
                            speedup_text(c))
              : unmeasured_text(c);
      out += fmt::format("  {:<40} {}\n", replay_cell_label(c), what);
    }
  }
  if (first != nullptr && any_peer_verdict(r)) {
    std::size_t met = 0, judged = 0;
    std::string missed;
    for (const auto& w : r["workloads"]) {
      const json* v = peer_verdict_of(w, baseline_malloc(w));
      if (v == nullptr || (*v)["verdict"] == "not_judged") continue;
      ++judged;
      if ((*v)["verdict"] == "met")
        ++met;
      else
        missed += (missed.empty() ? "" : ", ") + w["name"].get<std::string>();
    }
    out += fmt::format(
        "alloclab vs peers ({}): best alloclab beats every peer on {} of {} workloads{}\n",
        baseline_malloc(*first), met, judged,
        missed.empty() ? "" : "; missed: " + missed + " (reasons in report.md)");
  }
  std::size_t reproduced = 0, refuted = 0, not_run = 0, unmeasurable = 0;
  for (const auto& c : r["claims"]) {
    const std::string v = c["verdict"];
    (v == "reproduced"                 ? reproduced
     : v == "refuted"                  ? refuted
     : v == "not measured in this run" ? not_run
                                       : unmeasurable)++;
  }
  out += fmt::format(
      "seed claims: {} reproduced, {} refuted, {} not measured in this run, {} not measurable "
      "here\n",
      reproduced, refuted, not_run, unmeasurable);
  return out;
}

}  // namespace alloclab::lab
