#include "markdown.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace lab {
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

std::string speedup_text(const json& cell) {
    const json& vs = cell["vs_std"];
    if (vs.is_null() || vs["speedup_p50"].is_null()) return "";
    return fmt::format("{:.2f}× {}", vs["speedup_p50"].get<double>(), vs["mark"].get<std::string>());
}

bool is_debug(const json& r) { return r.value("debug_build", false); }

std::string cell_state(const json& cell) {
    const std::string status = cell["status"];
    if (status == "not_applicable") return "n/a";
    if (status == "overflowed") return "OVERFLOW";
    return "";
}

void headline_section(std::string& md, const json& r) {
    md += "## Headline: speed vs std (std p50 ÷ strategy p50; > 1 is faster)\n\n";
    md += "Significance: Mann-Whitney U over the per-repetition medians, `**` p < 0.01, `*` p < 0.05, "
          "`n.s.` not significant, `?` too few repetitions. `n/a`: strategy does not fit the workload; "
          "`OVERFLOW`: arena spilled to the heap, number withheld.\n\n";
    const auto& strategies = r["config"]["strategies"];
    md += "| workload | std p50 |";
    for (const auto& s : strategies)
        if (s != "std") md += fmt::format(" {} |", s.get<std::string>());
    md += "\n|---|---:|";
    for (const auto& s : strategies)
        if (s != "std") md += "---:|";
    md += "\n";
    for (const auto& w : r["workloads"]) {
        std::string std_p50 = "-";
        for (const auto& c : w["cells"])
            if (c["strategy"] == "std" && !c["timing"].is_null()) std_p50 = format_ns(c["timing"]["p50_ns"]);
        md += fmt::format("| {} | {} |", w["name"].get<std::string>(), std_p50);
        for (const auto& c : w["cells"]) {
            if (c["strategy"] == "std") continue;
            std::string text = cell_state(c);
            if (text.empty()) text = speedup_text(c);
            if (!c["warning"].is_null()) text += " ⚠";
            md += fmt::format(" {} |", text);
        }
        md += "\n";
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
    md += "Each quantitative claim from the seeds (data: `src/lab/claims/seed_claims.json`), checked against this run. "
          "Ratios are oriented so that > 1 means the candidate beats std.\n\n";
    md += "| seed | claim | workload / candidate | metric | measured | verdict | detail |\n|---|---|---|---|---:|---|---|\n";
    for (const auto& c : r["claims"]) {
        const std::string where = c["workload"].get<std::string>().empty()
                                      ? "-"
                                      : fmt::format("{} / {}", c["workload"].get<std::string>(),
                                                    c["candidate"].get<std::string>());
        const std::string verdict = c["verdict"];
        const std::string badge = verdict == "reproduced" ? "✅ reproduced" : verdict == "refuted" ? "❌ refuted" : "➖ not measurable here";
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c["seed"].get<std::string>(),
                          c["statement"].get<std::string>(), where, c["metric"].get<std::string>(),
                          c["measured"].get<std::string>(), badge, c["detail"].get<std::string>());
    }
    md += "\n";
}

void workload_table(std::string& md, const json& w, const json& r) {
    md += fmt::format("### {}\n\n{}\n\n", w["name"].get<std::string>(), w["description"].get<std::string>());
    const auto& f = w["footprint"];
    md += fmt::format("Per iteration (tracking pass): {} allocations, {} B requested, peak {} B live, largest request "
                      "{} B, bump-arena footprint {} B → arenas get {} B. Checksum {}.",
                      f["allocations"].get<std::size_t>(), f["bytes_requested"].get<std::size_t>(),
                      f["peak_bytes"].get<std::size_t>(), f["largest_request"].get<std::size_t>(),
                      f["monotonic_footprint"].get<std::size_t>(), f["suggested_arena_bytes"].get<std::size_t>(),
                      w["checksum"].get<std::string>());
    if (w["batched"].get<bool>())
        md += fmt::format(" **Batched:** an iteration is shorter than 50× the clock overhead ({:.0f} ns), so each "
                          "sample is the mean of {} back-to-back iterations; percentiles are of batch means.",
                          r["timer"]["batch_threshold_ns"].get<double>(), w["batch_size"].get<std::size_t>());
    if (f["allocations"].get<std::size_t>() <= 2)
        md += fmt::format(" **Note:** only {} allocation(s) per iteration; the rest is container and copy work, so "
                          "differences of a few percent here are code generation and code layout, not the allocator.",
                          f["allocations"].get<std::size_t>());
    md += "\n\n| strategy | p50 | p99 | jitter (p99−p50) | CV | throughput | heap allocs/it | heap B/it | "
          "fallbacks/it | faults/1k it | vs std (p50) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& c : w["cells"]) {
        std::string name = c["strategy"];
        if (!c["warning"].is_null()) name = "⚠ " + name;
        const json& t = c["timing"];
        const json& h = c["heap"];
        const std::string allocs = h.is_null() ? "-" : format_count(h["allocations_per_iteration"]);
        const std::string bytes = h.is_null() ? "-" : format_count(h["bytes_per_iteration"]);
        const json& fb = c["upstream_fallbacks_per_iteration"];
        const std::string fallbacks = fb.is_null() ? "-" : format_count(fb.get<double>());
        if (t.is_null()) {
            md += fmt::format("| {} | {} | | | | | {} | {} | {} | | {} |\n", name,
                              c["status"] == "not_applicable" ? "n/a" : "**withheld**", allocs, bytes, fallbacks,
                              c["reason"].is_null() ? "" : c["reason"].get<std::string>());
            continue;
        }
        md += fmt::format("| {} | {} | {} | {} | {:.1f}% | {} | {} | {} | {} | {:.2f} | {} |\n", name,
                          format_ns(t["p50_ns"]), format_ns(t["p99_ns"]), format_ns(t["jitter_ns"]),
                          100 * t["cv"].get<double>(), format_rate(t["throughput_per_s"]), allocs, bytes, fallbacks,
                          c["os"]["minor_faults_per_1000_iterations"].get<double>(),
                          c["strategy"] == "std" ? "baseline" : speedup_text(c));
    }
    for (const auto& c : w["cells"])
        if (!c["warning"].is_null())
            md += fmt::format("\n⚠ {}: {} (seed 000's bug 1, kept on purpose).\n", c["strategy"].get<std::string>(),
                              c["warning"].get<std::string>());
    md += "\n";
}

void method_section(std::string& md, const json& r) {
    const auto& t = r["timer"];
    const auto& cfg = r["config"];
    md += "## Method\n\n";
    md += fmt::format("- Timer: {} (clocksource {}), overhead {:.0f} ns per reading pair, resolution {:.0f} ns; "
                      "iterations faster than {:.0f} ns are timed in fixed batches.\n",
                      t["clock"].get<std::string>(),
                      r["environment"]["clocksource"].is_null() ? "unknown" : r["environment"]["clocksource"].get<std::string>(),
                      t["overhead_ns"].get<double>(), t["resolution_ns"].get<double>(),
                      t["batch_threshold_ns"].get<double>());
    md += fmt::format("- {} repetitions × {} timed samples per cell, after warm-up; within each repetition the "
                      "workloads and the strategies of each workload run in a freshly shuffled order (seed {}).\n",
                      cfg["repetitions"].get<std::size_t>(), cfg["samples_per_repetition"].get<std::size_t>(),
                      cfg["seed"].get<std::uint64_t>());
    md += fmt::format("- Heap allocations come from a separate untimed pass of {} iterations with the global "
                      "operator new counted; fallbacks are upstream allocations of the strategy's own buffer.\n",
                      cfg["counted_iterations"].get<std::size_t>());
    md += "- Arena and monotonic buffers are sized by a tracking pass (alloclab::tracking_resource monotonic "
          "footprint + 25 %); an arena that still touches the heap has its numbers withheld.\n";
    md += fmt::format("- Build: {} with flags `{}` (the lab aligns loops to 64 bytes: with default alignment the "
                      "same push_back loop ran 9 % apart under two allocators whose inner loops are identical).\n",
                      r["environment"]["compiler"].get<std::string>(), r["environment"]["cxx_flags"].get<std::string>());
    md += "- Every iteration returns a checksum of what it built; all strategies must agree or the run fails.\n";
    md += fmt::format("- Significance: {}; α = {}, smallest p reachable with these repetitions = {:.2g}.\n",
                      r["significance"]["test"].get<std::string>(), r["significance"]["alpha"].get<double>(),
                      r["significance"]["smallest_possible_p"].get<double>());
    md += "- Jitter = p99 − p50 in ns is the determinism figure (seed 000, bug 3); CV is secondary. Faults: minor "
          "page faults during the timed passes.\n\n";
}

void environment_section(std::string& md, const json& r) {
    md += "## Environment\n\n| key | value |\n|---|---|\n";
    for (const auto& [key, value] : r["environment"].items())
        md += fmt::format("| {} | {} |\n", key, value.is_string() ? value.get<std::string>() : value.dump());
    md += fmt::format("| command | `{}` |\n| created (UTC) | {} |\n| duration | {:.1f} s |\n\n",
                      r["command"].get<std::string>(), r["created_utc"].get<std::string>(),
                      r["duration_seconds"].get<double>());
}

}  // namespace

std::string render_report(const json& r) {
    std::string md;
    const bool debug = is_debug(r);
    md += debug ? "# DEBUG — alloclab report (unoptimised build: numbers are meaningless)\n\n" : "# alloclab report\n\n";
    md += fmt::format("Run {} · {} workloads × {} strategies · revision {}\n\n", r["created_utc"].get<std::string>(),
                      r["config"]["workloads"].size(), r["config"]["strategies"].size(),
                      r["environment"]["git_revision"].is_null() ? "unknown"
                                                                  : r["environment"]["git_revision"].get<std::string>());
    headline_section(md, r);
    warnings_section(md, r);
    claims_section(md, r);
    md += "## Workloads\n\n";
    for (const auto& w : r["workloads"]) workload_table(md, w, r);
    method_section(md, r);
    environment_section(md, r);
    if (debug) md += "**DEBUG build — do not publish these numbers.**\n";
    return md;
}

std::string render_headline(const json& r) {
    const auto& strategies = r["config"]["strategies"];
    std::size_t name_width = 8;
    for (const auto& w : r["workloads"]) name_width = std::max(name_width, w["name"].get<std::string>().size());
    std::vector<std::string> columns;
    for (const auto& s : strategies)
        if (s != "std") columns.push_back(s);

    std::string out = is_debug(r) ? "DEBUG BUILD — numbers are meaningless\n" : "";
    out += "speed vs std at p50 (std p50 / strategy p50, >1 = faster; ** p<0.01, * p<0.05)\n";
    out += fmt::format("{:<{}}  {:>9}", "workload", name_width, "std p50");
    for (std::size_t i = 0; i < columns.size(); ++i) out += fmt::format("  {:>9}", fmt::format("[{}]", i + 1));
    out += "\n";
    for (const auto& w : r["workloads"]) {
        std::string std_p50 = "-";
        for (const auto& c : w["cells"])
            if (c["strategy"] == "std" && !c["timing"].is_null()) std_p50 = format_ns(c["timing"]["p50_ns"]);
        out += fmt::format("{:<{}}  {:>9}", w["name"].get<std::string>(), name_width, std_p50);
        for (const auto& c : w["cells"]) {
            if (c["strategy"] == "std") continue;
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
    for (std::size_t i = 0; i < columns.size(); ++i) out += fmt::format("[{}] {}  ", i + 1, columns[i]);
    out += "\n";
    std::size_t reproduced = 0, refuted = 0, unmeasurable = 0;
    for (const auto& c : r["claims"]) {
        const std::string v = c["verdict"];
        (v == "reproduced" ? reproduced : v == "refuted" ? refuted : unmeasurable)++;
    }
    out += fmt::format("seed claims: {} reproduced, {} refuted, {} not measurable here\n", reproduced, refuted,
                       unmeasurable);
    return out;
}

}  // namespace lab
