// report.md: the serve frame: batch and serve side by side with Amdahl, the two
// load generators, the open-loop ladder, and the servers that failed.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/markdown_format.hpp"
#include "render/markdown_sections.hpp"

namespace alloclab::lab::markdown {
namespace {

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
      "ratio from the batch speedup s and the baseline's share f: 1 / ((1 − f) + f / s), in "
      "brackets at the ends of s's interval. "
      "*Allocator's part* is f × (1 − 1 / s): the share of the baseline's request time the "
      "variant's allocation strategy takes away; a 2× batch win on a workload that is 5 % of a "
      "request removes 2.5 % of it. "
      "*Served workload ratio* is the same workload timed inside the server, one iteration per "
      "request from a reset arena.\n\n",
      w["name"].get<std::string>(), w["baseline"]["strategy"].get<std::string>(),
      w["baseline"]["malloc"].get<std::string>());
  md += table_head(
      {text_column("variant"), figure_column("batch p50"), figure_column("batch speedup"),
       figure_column("served workload time"), figure_column("served workload ratio"),
       figure_column("workload share of server CPU"),
       figure_column("allocator's part of request time"),
       figure_column("Amdahl: predicted serve ratio"),
       figure_column("measured serve ratio (hey req/s)"), figure_column("measured (wrk req/s)"),
       figure_column("server CPU per request ratio")});
  for (const auto& c : w["cells"]) {
    if (c["status"] != "ok") {
      md +=
          fmt::format("| {} | **{}** | | | | | | | | | |\n", serve_variant(c), unmeasured_text(c));
      continue;
    }
    const json& b = c["batch"];
    const json& vs = c["vs_std"];
    const bool base = vs.is_null();
    const json none;
    md +=
        fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", serve_variant(c),
                    b.is_object() ? format_ns(b["p50_ns"].get<double>()) : "not in this run",
                    base            ? "baseline"
                    : b.is_object() ? estimate_or_dash(b["speedup_p50"])
                                    : "-",
                    format_number_or_dash(c["hey"]["server"]["workload_mean_us"], "{:.2f} µs"),
                    base ? "baseline" : estimate_or_dash(vs["workload_time_ratio"]),
                    percent_or_dash(c["hey"]["server"]["share_of_cpu"]),
                    base || !b.is_object() ? "-" : percent_or_dash(b["allocator_share_removed"]),
                    base            ? "-"
                    : b.is_object() ? format_number_or_dash(b["predicted_serve_ratio"], "{:.3f}×") +
                                          interval_text(b.value("predicted_serve_interval", none))
                                    : "-",
                    base ? "baseline" : estimate_or_dash(vs["throughput_ratio_hey"]),
                    base ? "baseline" : estimate_or_dash(vs["throughput_ratio_wrk"]),
                    base ? "baseline" : estimate_or_dash(vs["cpu_per_request_ratio"]));
  }
  md += "\n";
}

void serve_generator_table(std::string& md, const json& w, unsigned connections) {
  md += fmt::format(
      "### {}: served, per generator (closed loop)\n\n"
      "Medians over repetitions; latency in ms at the client (queueing included: a closed loop "
      "keeps {} requests in flight). hey prints 0.1 ms steps and no p99.9.\n\n",
      w["name"].get<std::string>(), connections);
  md += table_head({text_column("variant"), text_column("generator"), figure_column("req/s"),
                    figure_column("requests"), figure_column("errors"), figure_column("p50"),
                    figure_column("p90"), figure_column("p99"), figure_column("p99.9"),
                    figure_column("mean"), figure_column("server CPU per request"),
                    figure_column("req/s vs baseline"), figure_column("p50 vs baseline")});
  for (const auto& c : w["cells"]) {
    if (c["status"] != "ok") continue;
    for (const char* g : {"hey", "wrk"}) {
      const json& s = c[g];
      if (!s.is_object()) continue;  // a budgeted run serves with hey alone
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

void serve_ladder_table(std::string& md, const json& w) {
  if (std::none_of(w["cells"].begin(), w["cells"].end(),
                   [](const json& c) { return c["ladder"].is_array() && !c["ladder"].empty(); }))
    return;  // hey alone: no ladder
  md += fmt::format(
      "### {}: open loop, constant rate\n\n"
      "Each request is due at t0 + i / rate; its latency runs from that due time (coordinated "
      "omission corrected). Rates are fractions of the closed-loop saturation (the lower of hey's "
      "and wrk's req/s) of each server. Medians over repetitions.\n\n",
      w["name"].get<std::string>());
  md += table_head({text_column("variant"), figure_column("target req/s"),
                    figure_column("achieved req/s"), figure_column("errors"),
                    figure_column("p50 ms"), figure_column("p90 ms"), figure_column("p99 ms"),
                    figure_column("p99.9 ms"), figure_column("workload share of latency")});
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

void serve_failures(std::string& md, const json& w) {
  for (const auto& c : w["cells"])
    if (c["status"] != "ok")
      md += failed_cell_item("served " + w["name"].get<std::string>() + " / " + serve_variant(c), c,
                             "server");
}

}  // namespace

void serve_section(std::string& md, const json& r) {
  const json& serve = r.value("serve", json());
  if (!serve.is_object()) return;
  md += fmt::format(
      "## Batch and serve (seed 004's two frames)\n\n"
      "Served: one `alloclab serve` process per variant and repetition ({} each), one iteration "
      "per `GET /run`; {} with {} connections for {} s each{}. "
      "{}.\n\n",
      serve["repetitions"].get<std::size_t>(),
      serve.value("generators", std::string("hey and wrk")), serve["connections"].get<unsigned>(),
      serve["duration_s"].get<double>(),
      serve.value("generators", std::string()) == "hey" ? "" : ", then the open-loop ladder",
      serve["workloads"].empty() || serve["workloads"][0]["cells"].empty() ||
              !serve["workloads"][0]["cells"][0]["server"].is_object()
          ? std::string("Pinning: see each cell")
          : serve["workloads"][0]["cells"][0]["server"]["pinning"].get<std::string>());
  std::string failures;
  for (const auto& w : serve["workloads"]) {
    serve_amdahl_table(md, w);
    serve_generator_table(md, w, serve["connections"].get<unsigned>());
    serve_ladder_table(md, w);
    serve_failures(failures, w);
  }
  published_tables(md, r, r["published_tables"], "serve");
  if (!failures.empty())
    md += "### Failed servers\n\nThe other variants still ran.\n\n" + failures + "\n";
}

}  // namespace alloclab::lab::markdown
